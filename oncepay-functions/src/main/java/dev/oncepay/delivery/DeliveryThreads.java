package dev.oncepay.delivery;

import dev.oncepay.contract.DeploymentSettings;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The threads a batch's deliveries run on, one per message of a full batch: each waits on its own
 * endpoint, so one stalled endpoint costs its batch one call timeout, not one per message.
 */
@ApplicationScoped
public class DeliveryThreads {
    private final ExecutorService threads;

    public DeliveryThreads() {
        AtomicInteger number = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(DeploymentSettings.EVENT_QUEUE_BATCH_SIZE, runnable -> {
            Thread thread = new Thread(runnable, "event-delivery-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts {@code work} at once on one of the threads (or when one is free). */
    public <T> CompletableFuture<T> start(Supplier<T> work) {
        return CompletableFuture.supplyAsync(work, threads);
    }

    @PreDestroy
    void close() {
        threads.shutdownNow();
    }
}
