package dev.oncepay.sim;

/**
 * What happens to one charge request, decided up front by {@link Faults#roll}.
 *
 * @param serverErrorStatus 500 or 502 when the request fails with a server error, else 0
 * @param nonFinal the answer says {@code processing} whatever the charge's real outcome
 * @param emptyBodyStatus 200 or 204 when the answer comes without a body, else 0
 * @param conflict the key is still in flight: the charge commits, this request gets {@code 409}
 */
record FaultPlan(
        boolean outage,
        long latencyMs,
        boolean rateLimited,
        int serverErrorStatus,
        boolean reset,
        boolean commitThenTimeout,
        boolean decline,
        boolean nonFinal,
        int emptyBodyStatus,
        boolean conflict) {
}
