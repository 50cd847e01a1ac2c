package dev.oncepay.sim;

/**
 * What happens to one charge request, decided up front by {@link Faults#roll}.
 *
 * @param serverErrorStatus 500 or 502 when the request fails with a server error, else 0
 */
record FaultPlan(
        boolean outage,
        long latencyMs,
        boolean rateLimited,
        int serverErrorStatus,
        boolean reset,
        boolean commitThenTimeout,
        boolean decline) {
}
