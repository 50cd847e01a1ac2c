package dev.oncepay.sim;

import java.util.concurrent.atomic.AtomicInteger;

/** How many provider API requests arrived, whatever their fate (faulted, invalid, replayed). */
final class RequestCounters {

    final AtomicInteger charges = new AtomicInteger();
    final AtomicInteger lookups = new AtomicInteger();

    void reset() {
        charges.set(0);
        lookups.set(0);
    }
}
