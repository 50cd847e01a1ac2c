package dev.oncepay.sim;

import java.util.List;

/**
 * What happens to one lookup request, decided up front by {@link Faults#rollLookup}.
 *
 * @param lagMs a charge is listed only this long after it was executed
 * @param malformedBody a {@code 200} body without the {@code data} list to answer instead, or null
 */
record LookupPlan(boolean outage, long latencyMs, long lagMs, String malformedBody) {

    /** 2xx lookup answers real providers send without the list: no "not found" can be read from them. */
    static final List<String> MALFORMED_SHAPES = List.of("{\"object\":\"list\"}", "{}", "{\"object\":\"list\",\"data\":null}");
}
