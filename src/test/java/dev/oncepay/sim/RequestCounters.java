package dev.oncepay.sim;

import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many provider API requests arrived, whatever their fate (faulted, invalid, replayed), and
 * when; plus scripted answers that tests queue for the next charge requests.
 */
final class RequestCounters {

    final AtomicInteger charges = new AtomicInteger();
    final AtomicInteger lookups = new AtomicInteger();
    final List<Instant> chargeArrivals = new CopyOnWriteArrayList<>();
    /** Answers for the next charge requests, in order, before any other fault. */
    final Queue<ScriptedAnswer> scriptedAnswers = new ConcurrentLinkedQueue<>();

    void reset() {
        charges.set(0);
        lookups.set(0);
        chargeArrivals.clear();
        scriptedAnswers.clear();
    }
}
