package dev.oncepay.config;

import java.time.Duration;

/**
 * The limits of one kind of provider call: timeout and retries by SmallRye Fault Tolerance guards
 * (one per provider account, see {@code ProviderCalls}), the breaker by the fleet breaker
 * shared through the table ({@code FleetProtection}). Each kind's defaults are in its own mapping
 * ({@link ChargeCallConfig}, {@link LookupCallConfig}).
 */
public interface ProviderCallConfig {

    /** The whole call: every attempt and every wait between them. */
    Duration budget();

    /** The longest one attempt may take. */
    Duration attemptTimeout();

    /** Attempts after the first, each only if it and its wait fit the budget. */
    int maxRetries();

    /** The first backoff ceiling (full jitter, doubling up to {@code backoff-cap}). */
    Duration backoffBase();

    /**
     * Failed or slow attempts, fleet-wide, within {@code breaker-window} that open the account's
     * breaker ({@code FleetBreaker}): a count, not a ratio, so successes cost no write.
     */
    int breakerFailures();

    /** The window failures are counted in; a failure after it ends starts a new one. */
    Duration breakerWindow();

    /** How long an open breaker refuses calls before one sandbox fleet-wide may probe. */
    Duration breakerDelay();

    /** An attempt that answers but takes longer than this counts as a failure (a hanging provider trips too). */
    Duration slowCall();

    /**
     * The bulkhead: calls of this kind in flight to one provider account, fleet-wide, beyond
     * which new calls are refused at once (503, or the sweep defers). Approximate: only calls
     * older than {@code in-flight-after} are counted ({@code Bulkhead}).
     */
    int maxInFlight();
}
