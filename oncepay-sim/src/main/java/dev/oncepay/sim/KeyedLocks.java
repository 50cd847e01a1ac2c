package dev.oncepay.sim;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** One lock per name, so work on one name is serialized while other names proceed in parallel. */
final class KeyedLocks {

    private final ConcurrentHashMap<String, Object> locks = new ConcurrentHashMap<>();

    <T> T withLocked(String name, Supplier<T> action) {
        // Locks are never removed (a test run has few names); removing them safely would need
        // reference counting for no benefit here.
        synchronized (locks.computeIfAbsent(name, k -> new Object())) {
            return action.get();
        }
    }
}
