package dev.oncepay.testing;

import dev.oncepay.charge.ChargePhaseReached;
import dev.oncepay.refund.RefundPhaseReached;
import dev.oncepay.wallet.WalletPhaseReached;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Fails or parks a charge or wallet run right after a phase ({@code ChargePhase}, {@code WalletPhase}),
 * the way a crashed or frozen Lambda would leave it: no clean-up code runs, the state is whatever
 * the last write made it.
 */
@ApplicationScoped
public class PhaseHooks {
    /**
     * What a crashed process looks like from the outside: the invocation errors. An Error, so
     * that no handler for application exceptions runs, as none would in a dead process.
     */
    public static class SimulatedCrash extends Error {
        public SimulatedCrash(Enum<?> phase) {
            super("simulated crash after " + phase);
        }
    }

    private volatile Enum<?> crashAfter;
    private volatile Enum<?> parkAfter;
    private volatile CountDownLatch parked = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(1);

    /** The next run that completes {@code phase} dies right there (once). */
    public void crashOnceAfter(Enum<?> phase) {
        crashAfter = phase;
    }

    /** The next run that completes {@code phase} stops there until {@link #release()} (once). */
    public void parkOnceAfter(Enum<?> phase) {
        parked = new CountDownLatch(1);
        release = new CountDownLatch(1);
        parkAfter = phase;
    }

    public boolean awaitParked() throws InterruptedException {
        return parked.await(30, TimeUnit.SECONDS);
    }

    public void release() {
        release.countDown();
    }

    public void reset() {
        crashAfter = null;
        parkAfter = null;
        release.countDown();
    }

    void on(@Observes ChargePhaseReached event) throws InterruptedException {
        reached(event.phase());
    }

    void on(@Observes RefundPhaseReached event) throws InterruptedException {
        reached(event.phase());
    }

    void on(@Observes WalletPhaseReached event) throws InterruptedException {
        reached(event.phase());
    }

    private void reached(Enum<?> phase) throws InterruptedException {
        synchronized (this) {
            if (phase == crashAfter) {
                crashAfter = null;
                throw new SimulatedCrash(phase);
            }
        }
        boolean park;
        synchronized (this) {
            park = phase == parkAfter;
            if (park) {
                parkAfter = null;
            }
        }
        if (park) {
            parked.countDown();
            release.await(60, TimeUnit.SECONDS);
        }
    }
}
