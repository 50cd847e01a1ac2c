package dev.oncepay.provider.policy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One guarded call across its attempts: its deadline (design rule 12: no wait outlives it), and
 * what the attempts did — after the last one fails we must know whether any may have reached the
 * provider (UNKNOWN) or none did (NOT_SENT).
 *
 * <p>Time here is the JVM's monotonic clock, the one SmallRye sleeps and times out on; the
 * gateway turns a caller's deadline into a remaining duration once, at the start.
 */
public final class CallLog {
    private final long deadlineNanos;
    private final Duration attemptTimeout;
    private final FullJitterBackoff backoff;
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicBoolean maybeExecuted = new AtomicBoolean();
    private final AtomicBoolean hung = new AtomicBoolean();

    /**
     * @param budget what is left for the whole call from now: every attempt and every wait
     * @param attemptTimeout the longest one attempt may take (its {@code @Timeout})
     */
    CallLog(Duration budget, Duration attemptTimeout, FullJitterBackoff backoff) {
        this.deadlineNanos = System.nanoTime() + Math.max(0, budget.toNanos());
        this.attemptTimeout = attemptTimeout;
        this.backoff = backoff;
    }

    void attempted() {
        attempts.incrementAndGet();
    }

    void mayHaveExecuted() {
        maybeExecuted.set(true);
    }

    /** An attempt got no answer until the read timeout (or its own timeout): the provider may still be working on it. */
    void hung() {
        hung.set(true);
    }

    boolean anyHung() {
        return hung.get();
    }

    /** Whether an attempt started after {@code wait} ends, even at its timeout, before the deadline. */
    public boolean attemptFitsAfter(Duration wait) {
        return System.nanoTime() + wait.toNanos() + attemptTimeout.toNanos() <= deadlineNanos;
    }

    /** The full-jitter wait before the next retry (the first retry follows attempt 1). */
    Duration nextBackoff() {
        return backoff.delayBefore(Math.max(0, attempts.get() - 1));
    }

    Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    public int attempts() {
        return attempts.get();
    }

    public boolean anyMaybeExecuted() {
        return maybeExecuted.get();
    }
}
