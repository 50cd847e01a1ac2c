package dev.oncepay.provider;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the attempts of one guarded call did, across retries: after the last one fails we must
 * know whether any attempt may have reached the provider (UNKNOWN) or none did (NOT_SENT).
 */
public final class CallLog {
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicBoolean maybeExecuted = new AtomicBoolean();

    void attempted() {
        attempts.incrementAndGet();
    }

    void mayHaveExecuted() {
        maybeExecuted.set(true);
    }

    public int attempts() {
        return attempts.get();
    }

    public boolean anyMaybeExecuted() {
        return maybeExecuted.get();
    }
}
