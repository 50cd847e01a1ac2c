package dev.oncepay.reconcile;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Acts once when a sweep reaches a {@link ReconcilePhase}, on the sweep's own thread: a crash
 * (the sweep dies right there, no clean-up), a park (frozen until released), or any interleaved
 * action (a webhook's write landing between the sweep's read and its write).
 */
@ApplicationScoped
public class SweepHooks {
    /** What a sweep that died after a step looks like: no further code of that item runs. */
    public static class SimulatedCrash extends RuntimeException {
        public SimulatedCrash(ReconcilePhase phase) {
            super("simulated crash after " + phase, null, false, false);
        }
    }

    /** A sweep frozen after a phase. */
    public static final class Park {
        private final CountDownLatch parked = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        public boolean awaitParked() throws InterruptedException {
            return parked.await(30, TimeUnit.SECONDS);
        }

        public void release() {
            release.countDown();
        }
    }

    private final Map<ReconcilePhase, Consumer<String>> once = new ConcurrentHashMap<>();
    private final Map<Park, Boolean> parks = new ConcurrentHashMap<>();

    /** The first payment to complete {@code phase} runs {@code action(paymentId)} first (once). */
    public void onceAt(ReconcilePhase phase, Consumer<String> action) {
        once.put(phase, action);
    }

    public void crashOnceAt(ReconcilePhase phase) {
        onceAt(phase, id -> {
            throw new SimulatedCrash(phase);
        });
    }

    public Park parkOnceAt(ReconcilePhase phase) {
        Park park = new Park();
        parks.put(park, true);
        onceAt(phase, id -> {
            park.parked.countDown();
            try {
                park.release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return park;
    }

    public void reset() {
        once.clear();
        parks.keySet().forEach(Park::release);
        parks.clear();
    }

    void on(@Observes ReconcilePhaseReached event) {
        Consumer<String> action = once.remove(event.phase());
        if (action != null) {
            action.accept(event.paymentId());
        }
    }
}
