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
     * The fleet breaker's window ({@code FleetBreaker}): the newest calls, fleet-wide, in whole
     * seconds back from now until they hold at least this many (and none older than
     * {@code breaker-window}). The ratios are taken over it.
     */
    int breakerWindowCalls();

    /** Calls the window must hold before the breaker may open: fewer prove nothing either way. */
    int breakerMinCalls();

    /** The share of failed attempts in the window that opens the breaker. */
    double breakerFailureRatio();

    /** The share of slow attempts (answered, but slower than {@code slow-call}) in the window that opens it. */
    double breakerSlowCallRatio();

    /** The oldest calls the window may hold. */
    Duration breakerWindow();

    /** How long an open breaker refuses calls before one sandbox fleet-wide may probe. */
    Duration breakerDelay();

    /**
     * An attempt that answers but takes longer than this is slow: it counts toward the slow-call
     * ratio, not as a failure. A probe that answers closes the breaker however slowly.
     */
    Duration slowCall();

    /**
     * The bulkhead: calls of this kind in flight to one provider account, fleet-wide, beyond
     * which new calls are refused at once (503, or the sweep defers). Approximate: only calls
     * older than {@code in-flight-after} are counted ({@code Bulkhead}).
     */
    int maxInFlight();
}
