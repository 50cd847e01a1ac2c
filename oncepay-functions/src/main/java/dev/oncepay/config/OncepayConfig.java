package dev.oncepay.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Every setting of oncepay, from {@code application.properties} or the environment: the root
 * mapping, one group per prefix below {@code oncepay}.
 */
@ConfigMapping(prefix = "oncepay")
public interface OncepayConfig {

    /** The DynamoDB table name (env {@code ONCEPAY_TABLE}). */
    @WithDefault("oncepay")
    String table();

    /** Where a request's tenant comes from ({@code oncepay.tenant.*}). */
    TenantConfig tenant();

    /** How long idempotency keys are kept and owned ({@code oncepay.idempotency.*}). */
    IdempotencyConfig idempotency();

    /** The {@code Retry-After} values of the charge API ({@code oncepay.charge.*}). */
    ChargeRetryAfterConfig charge();

    /** The sweep index and the first check of a payment ({@code oncepay.sweep.*}). */
    SweepConfig sweep();

    /** The provider accounts and the limits of calls to them ({@code oncepay.provider.*}). */
    ProviderConfig provider();

    /** One successful charge per order reference ({@code oncepay.orders.*}). */
    OrdersConfig orders();

    /** Charges queued for the charge worker ({@code oncepay.queue.*}). */
    QueueConfig queue();

    /** Merchant endpoints and the delivery of events to them ({@code oncepay.events.*}). */
    EventsConfig events();

    /** Who may call the operator API ({@code oncepay.operator.*}). */
    OperatorConfig operator();

    /** What the operator API lists ({@code oncepay.admin.*}). */
    AdminConfig admin();
}
