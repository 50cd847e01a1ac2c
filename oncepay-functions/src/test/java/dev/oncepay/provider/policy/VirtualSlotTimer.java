package dev.oncepay.provider.policy;

import dev.oncepay.provider.policy.sim.ProtectedFleet.Timers;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The bulkhead's slot timer on the simulation's virtual time. {@link Bulkhead} takes a slow call's
 * slot from a real-time {@code ScheduledExecutorService} {@code in-flight-after} into the call; in a
 * simulation that thread would race the event loop and read a clock that jumps. Until the bulkhead
 * has a seam for it, this sets its private executor field (reflection, test only) to an executor
 * whose {@code schedule} is an event at the virtual instant, run on the simulation's thread; a call
 * that ends first cancels it, exactly as with the real timer. Only {@code schedule(Runnable, …)} is
 * supported: it is all the bulkhead uses.
 */
final class VirtualSlotTimer extends AbstractExecutorService implements ScheduledExecutorService {
    private static final Field SLOT_TAKER;

    static {
        try {
            SLOT_TAKER = Bulkhead.class.getDeclaredField("slotTaker");
            SLOT_TAKER.setAccessible(true);
        } catch (NoSuchFieldException changed) {
            throw new IllegalStateException("Bulkhead has no slotTaker field any more: replace this seam", changed);
        }
    }

    private final Timers timers;

    private VirtualSlotTimer(Timers timers) {
        this.timers = timers;
    }

    /** Makes {@code bulkhead} take its slots on {@code timers}' virtual time. */
    static void install(Bulkhead bulkhead, Timers timers) {
        try {
            SLOT_TAKER.set(bulkhead, new VirtualSlotTimer(timers));
        } catch (IllegalAccessException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return new Scheduled(timers, command, Duration.ofNanos(unit.toNanos(delay)));
    }

    /** A timer event; cancelling it before it ran keeps it from running. */
    private static final class Scheduled implements ScheduledFuture<Object> {
        private final Runnable cancel;
        private boolean ran;
        private boolean cancelled;

        Scheduled(Timers timers, Runnable command, Duration delay) {
            this.cancel = timers.schedule(delay, () -> {
                ran = true;
                command.run();
            });
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (ran || cancelled) {
                return false;
            }
            cancelled = true;
            cancel.run();
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return ran || cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return 0;
        }

        @Override
        public int compareTo(Delayed other) {
            return 0;
        }
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("the bulkhead schedules Runnables only");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("the bulkhead schedules one-off tasks only");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("the bulkhead schedules one-off tasks only");
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public void shutdown() {
    }

    @Override
    public List<Runnable> shutdownNow() {
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }
}
