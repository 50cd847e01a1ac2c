package dev.oncepay.sim;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Settles pending refunds later, for both APIs, on one daemon thread, so a pending refund never
 * keeps a test JVM alive.
 */
final class RefundSettler implements AutoCloseable {

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "psp-sim-refund-settler");
        thread.setDaemon(true);
        return thread;
    });

    void later(Runnable settle, long delayMs) {
        try {
            executor.schedule(settle, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // the simulator is closing: the refund stays pending, as at a provider that went away
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
