package dev.oncepay.sim;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The provider's idempotency keys. Concurrent requests with the same key are serialized by a
 * per-key lock, so the check-then-execute in {@link SimulatedProvider} runs once per key at a time
 * while different keys proceed in parallel.
 */
final class IdempotencyKeys {

    private final KeyedLocks locks = new KeyedLocks();
    private final ConcurrentHashMap<String, StoredResponse> responses = new ConcurrentHashMap<>();
    private final Clock clock;
    private final Duration retention;

    IdempotencyKeys(Clock clock, Duration retention) {
        this.clock = clock;
        this.retention = retention;
    }

    <T> T withKeyLocked(String key, Supplier<T> action) {
        return locks.withLocked(key, action);
    }

    /** The stored answer, unless it is older than the retention (then the key is free again). */
    Optional<StoredResponse> find(String key) {
        StoredResponse stored = responses.get(key);
        if (stored == null) {
            return Optional.empty();
        }
        if (stored.storedAt().plus(retention).isBefore(clock.instant())) {
            responses.remove(key, stored);
            return Optional.empty();
        }
        return Optional.of(stored);
    }

    void store(String key, StoredResponse response) {
        responses.put(key, response);
    }

    void clear() {
        responses.clear();
    }
}
