package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The {@code Retry-After} the charge API sends with each answer that asks for a retry ({@code oncepay.charge.*}). */
public interface ChargeRetryAfterConfig {

    /** {@code Retry-After} sent with 409 while the same key is in flight. */
    @WithDefault("1S")
    Duration inFlightRetryAfter();

    /** {@code Retry-After} sent with 202 when the outcome is unknown. */
    @WithDefault("10S")
    Duration unknownRetryAfter();

    /** {@code Retry-After} sent with 503 when the provider is unavailable. */
    @WithDefault("5S")
    Duration unavailableRetryAfter();

    /**
     * {@code Retry-After} sent with 503 {@code provider-at-capacity}: a slot frees as soon as one
     * of the account's slow calls ends, so sooner than an open breaker lets a call through.
     */
    @WithDefault("1S")
    Duration atCapacityRetryAfter();
}
