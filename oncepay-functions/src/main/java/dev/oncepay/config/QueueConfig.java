package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Charges queued for the charge worker ({@code oncepay.queue.*}): a request with {@code Prefer:
 * respond-async}, or any request of a tenant that makes it its default, is answered 202 once its
 * charge is on its provider account's queue. Each account's queue URL is its {@code queue-url}
 * ({@link ProviderConfig#queueUrl()}, {@link ProviderAccountConfig#queueUrl()}).
 */
public interface QueueConfig {

    /** The SQS endpoint where the queues are not Amazon SQS's (the local run and the tests: ElasticMQ). */
    Optional<String> endpointOverride();

    /** Whether charges are queued for tenants without a setting of their own, without asking. */
    @WithDefault("false")
    boolean respondAsync();

    /** Per-tenant settings, by tenant id. */
    Map<String, TenantQueue> tenants();

    /** One tenant's queue settings. */
    interface TenantQueue {
        /** Overrides {@link QueueConfig#respondAsync()} for this tenant. */
        Optional<Boolean> respondAsync();
    }

    /**
     * A queued payment is charged by the worker within this time of its request or not by it at all
     * (the sweep then settles it from the provider's word); the queues keep a message this long.
     */
    @WithDefault("1H")
    Duration horizon();

    /**
     * The first wait of a charge the worker puts back on its queue (the account's breaker or bulkhead
     * refused it, or another run holds it); each further one doubles, with full jitter, up to
     * {@link #retryDelayCap()}.
     */
    @WithDefault("2S")
    Duration retryDelayBase();

    /** The longest wait of a charge put back on its queue; at most SQS's 15 minutes. */
    @WithDefault("5M")
    Duration retryDelayCap();

    /** Whether {@code tenant}'s charges are queued when its request does not say. */
    default boolean respondAsyncFor(String tenant) {
        TenantQueue own = tenants().get(tenant);
        return own != null && own.respondAsync().isPresent() ? own.respondAsync().get() : respondAsync();
    }
}
