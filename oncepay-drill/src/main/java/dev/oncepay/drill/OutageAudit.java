package dev.oncepay.drill;

import java.time.Duration;
import java.util.Locale;

/**
 * What the provider's outage let through to it, judged against the fleet breaker's bound: per
 * provider account the window's calls ({@code breaker-window-calls}: the breaker opens once half of
 * them failed, and a dead provider fails them all) and one probe per open period, plus one call per
 * sandbox that calls the provider, which it may have had under way as the breaker opened. The
 * count is the provider's own ({@code /_sim/stats}), every attempt included: retries, probes, the
 * charge worker's.
 *
 * @param chargeRequests charge requests that reached the provider while it was down; -1 if unknown
 * @param bound what the fleet breaker lets through at most
 * @param basis how {@code bound} is made up, for the report
 */
record OutageAudit(int chargeRequests, int bound, String basis) {
    /** ChargeCallConfig's default {@code breaker-window-calls}, which the drill's local run keeps. */
    static final int WINDOW_CALLS = 20;
    /** ChargeCallConfig's default {@code breaker-delay}, which the drill's local run keeps. */
    static final Duration OPEN_FOR = Duration.ofSeconds(10);

    /**
     * @param accounts provider accounts the workload charges through (each has its own breaker)
     * @param sandboxes sandboxes that may call the provider at once: charge, charge-worker, reconcile
     * @param outage how long the provider was down
     */
    static OutageAudit judge(int chargeRequests, int accounts, int sandboxes, Duration outage) {
        long probes = Math.max(1, (outage.toMillis() + OPEN_FOR.toMillis() - 1) / OPEN_FOR.toMillis());
        int bound = (int) (accounts * (WINDOW_CALLS + probes) + sandboxes);
        return new OutageAudit(chargeRequests, bound, String.format(Locale.ROOT,
                "%d account(s) x (%d window calls + %d probes) + %d sandboxes", accounts, WINDOW_CALLS, probes, sandboxes));
    }

    /** Requests beyond the bound; an unknown count is not counted, and so is beyond it. */
    int overBound() {
        return chargeRequests < 0 ? Integer.MAX_VALUE : Math.max(0, chargeRequests - bound);
    }

    String line() {
        return chargeRequests < 0
                ? "outage charge requests over the breaker's bound: not counted (the provider's counts were unreadable)"
                : "outage charge requests over the breaker's bound: " + overBound() + " (" + chargeRequests
                        + " reached the dead provider; bound " + bound + ": " + basis + ")";
    }
}
