package dev.oncepay.webhook;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Settings of the {@code webhook} function ({@code oncepay.webhook.*}). Kept apart from
 * {@code OncepayConfig} so the webhook owns its part of the configuration.
 */
@ConfigMapping(prefix = "oncepay.webhook")
public interface WebhookConfig {

    /**
     * Signing secrets per provider id and account ({@code oncepay.webhook.secrets.stripe.stripe-eu=s1,s2}).
     * Several are active while a secret is rotated; a signature made with any of them is accepted,
     * and speaks for that account's payments only. A provider without secrets has no endpoint; the
     * per-provider form without an account stops startup ({@link WebhookStartupCheck}). Production
     * reads them from the secrets listed in {@code ONCEPAY_SECRET_ARNS} (the webhook function's
     * signing-secret secrets, {@code SecretsManagerConfigSourceFactory}), never from this file; they
     * are never logged. Read at each use through {@code Secrets}; this mapping also gives
     * environment variables ({@code ONCEPAY_WEBHOOK_SECRETS_SIM_DEFAULT}) their dotted names.
     */
    Map<String, Map<String, List<String>>> secrets();

    /** How far a signature's timestamp may be from our clock, in either direction (replay window). */
    @WithDefault("300S")
    Duration tolerance();

    /**
     * How long an event id is remembered (journal TTL). Longer than the provider's retry window
     * (3 days), so every redelivery of an event meets its journal record.
     */
    @WithDefault("7D")
    Duration retention();

    /** Read-decide-write rounds on a payment before giving up (and answering 500 so the provider retries). */
    @WithDefault("5")
    int applyAttempts();

    /** Bodies above this size are rejected (400) before parsing; provider events are a few hundred bytes. */
    @WithDefault("65536")
    int maxBodyBytes();
}
