package dev.oncepay.sim;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Delivers events to the webhook target asynchronously, at least once: a failed try (non-2xx or
 * connection error) is retried a few times with growing delays, never on the request thread.
 * The webhook faults apply here: duplicates (same event id, delivered twice) and a random
 * 0–500 ms delay per delivery so events can overtake each other.
 */
final class WebhookSender implements AutoCloseable {

    static final int MAX_ATTEMPTS = 4;
    private static final long FIRST_RETRY_DELAY_MS = 100;
    private static final int MAX_REORDER_DELAY_MS = 500;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(4, runnable -> {
        Thread thread = new Thread(runnable, "psp-sim-webhook");
        thread.setDaemon(true); // never keep a test JVM alive for a best-effort delivery
        return thread;
    });
    private final AtomicReference<WebhookTarget> target = new AtomicReference<>();
    private final Supplier<Faults> faults;
    private final String signatureHeader;
    private final AtomicInteger pending = new AtomicInteger();
    private final List<WebhookAttempt> attempts = new ArrayList<>();
    private volatile Random random;

    /** @param signatureHeader the header that carries the {@code t=…,v1=…} signature */
    WebhookSender(Supplier<Faults> faults, long seed, String signatureHeader) {
        this.faults = faults;
        this.signatureHeader = signatureHeader;
        this.random = new Random(seed);
    }

    void target(WebhookTarget newTarget) {
        target.set(newTarget);
    }

    WebhookTarget target() {
        return target.get();
    }

    /** Queues the event {@code eventId} with {@code body}; does nothing when no target is set. */
    void publish(String eventId, String type, String body) {
        publish(eventId, type, body, null);
    }

    /**
     * The same, signed with {@code secret} (the secret of the account the event is about) instead
     * of the target's; {@code null} signs with the target's.
     */
    void publish(String eventId, String type, String body, String secret) {
        WebhookTarget configured = target.get();
        WebhookTarget to = configured == null || secret == null ? configured
                : new WebhookTarget(configured.url(), secret, configured.providerId());
        if (to == null) {
            return;
        }
        Faults current = faults.get();
        Random dice = random;
        int copies;
        long[] delays = new long[2];
        synchronized (dice) {
            copies = dice.nextDouble() < current.webhookDuplicateRate() ? 2 : 1;
            for (int i = 0; i < delays.length; i++) {
                delays[i] = current.webhookReorder() ? dice.nextInt(MAX_REORDER_DELAY_MS + 1) : 0;
            }
        }
        for (int copy = 0; copy < copies; copy++) {
            pending.incrementAndGet();
            schedule(() -> attempt(to, eventId, type, body, 1), delays[copy]);
        }
    }

    private void attempt(WebhookTarget to, String eventId, String type, String body, int attempt) {
        // Signed per try, as a real provider does: the timestamp is the time of sending.
        WebhookDelivery delivery = WebhookDelivery.signed(eventId, body, to.secret(), Instant.now().getEpochSecond());
        int status;
        try {
            status = http.send(delivery.toRequest(to.url(), signatureHeader), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            status = 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // shutting down
            pending.decrementAndGet();
            return;
        }
        synchronized (attempts) {
            attempts.add(new WebhookAttempt(eventId, type, attempt, status, Instant.now()));
        }
        boolean delivered = status >= 200 && status < 300;
        if (delivered || attempt >= MAX_ATTEMPTS) {
            pending.decrementAndGet();
            return;
        }
        long backoff = FIRST_RETRY_DELAY_MS << (attempt - 1);
        schedule(() -> attempt(to, eventId, type, body, attempt + 1), backoff);
    }

    private void schedule(Runnable task, long delayMs) {
        try {
            scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            pending.decrementAndGet();
        }
    }

    List<WebhookAttempt> attempts() {
        synchronized (attempts) {
            return List.copyOf(attempts);
        }
    }

    /** Waits until every queued delivery has succeeded or given up; false on timeout (or interrupt). */
    boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pending.get() > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Forgets past attempts and restarts the dice; deliveries already queued still run. */
    void reset(long seed) {
        synchronized (attempts) {
            attempts.clear();
        }
        random = new Random(seed);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
