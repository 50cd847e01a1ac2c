package dev.oncepay.provider.policy;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The breaker of one sandbox, from its own calls only: what decides while the fleet's items cannot
 * be read or written. A store outage then does not open the provider to the whole fleet: each
 * sandbox stops after its own minimum of calls failed at the ratio, for an open period, so the
 * fleet fails open at a bounded rate (about {@code breaker-min-calls} calls per sandbox per
 * {@code breaker-delay}) instead of wide open.
 */
final class LocalBreaker {
    /** One breaker's newest calls in this sandbox (true: failed) and until when it refuses. */
    private static final class Calls {
        final Deque<Boolean> newest = new ArrayDeque<>();
        long openUntil;
    }

    private final Map<String, Calls> byBreaker = new ConcurrentHashMap<>();

    boolean refuses(String pk, Instant now) {
        Calls calls = byBreaker.get(pk);
        if (calls == null) {
            return false;
        }
        synchronized (calls) {
            return now.toEpochMilli() < calls.openUntil;
        }
    }

    void record(String pk, boolean failed, Instant now, FleetProtection.Limits limits) {
        Calls calls = byBreaker.computeIfAbsent(pk, k -> new Calls());
        synchronized (calls) {
            calls.newest.addLast(failed);
            while (calls.newest.size() > Math.max(limits.windowCalls(), limits.minCalls())) {
                calls.newest.removeFirst();
            }
            long failures = calls.newest.stream().filter(f -> f).count();
            if (calls.newest.size() >= limits.minCalls() && failures >= limits.failureRatio() * calls.newest.size()) {
                calls.openUntil = now.plus(limits.openFor()).toEpochMilli();
                calls.newest.clear();
            }
        }
    }

    void forget() {
        byBreaker.clear();
    }
}
