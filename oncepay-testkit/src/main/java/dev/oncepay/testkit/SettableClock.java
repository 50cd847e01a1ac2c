package dev.oncepay.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Real time plus an offset a test can move forward; or, {@link #stoppedAt stopped}, a virtual clock
 * that moves only when advanced (simulations, and tests that count per second of the clock).
 */
public class SettableClock extends Clock {
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);
    /** The instant the offset counts from when stopped; {@code null}: real time. */
    private final Instant stoppedAt;

    public SettableClock() {
        this(null);
    }

    /** Stopped at {@code stoppedAt} until advanced; {@code null}: real time. */
    protected SettableClock(Instant stoppedAt) {
        this.stoppedAt = stoppedAt;
    }

    /** A clock that reads {@code start} until advanced: time passes only by {@link #advance}. */
    public static SettableClock stoppedAt(Instant start) {
        return new SettableClock(start);
    }

    public void advance(Duration by) {
        offset.updateAndGet(o -> o.plus(by));
    }

    public void reset() {
        offset.set(Duration.ZERO);
    }

    @Override
    public Instant instant() {
        return (stoppedAt != null ? stoppedAt : Instant.now()).plus(offset.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
