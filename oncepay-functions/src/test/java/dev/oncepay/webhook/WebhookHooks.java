package dev.oncepay.webhook;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Observes the webhook phases: fails a delivery right after a phase, the way a crashed Lambda
 * would leave it (no clean-up runs, the state is whatever the last write made it), and counts per
 * event how many deliveries actually moved the payment.
 */
@ApplicationScoped
public class WebhookHooks {
    /** What a crashed process looks like from the outside: the invocation errors. */
    public static class SimulatedCrash extends RuntimeException {
        public SimulatedCrash(WebhookPhase phase) {
            super("simulated crash after " + phase);
        }
    }

    private volatile WebhookPhase crashAfter;
    private final Map<String, AtomicInteger> paymentWrites = new ConcurrentHashMap<>();

    /** The next delivery that completes {@code phase} dies right there (once). */
    public void crashOnceAfter(WebhookPhase phase) {
        crashAfter = phase;
    }

    /** Deliveries of {@code eventId} whose conditional write moved the payment. */
    public int paymentWrites(String eventId) {
        AtomicInteger n = paymentWrites.get(eventId);
        return n == null ? 0 : n.get();
    }

    public void reset() {
        crashAfter = null;
        paymentWrites.clear();
    }

    void on(@Observes WebhookPhaseReached event) {
        if (event.phase() == WebhookPhase.PAYMENT_UPDATED && event.paymentWritten()) {
            paymentWrites.computeIfAbsent(event.eventId(), id -> new AtomicInteger()).incrementAndGet();
        }
        synchronized (this) {
            if (event.phase() == crashAfter) {
                crashAfter = null;
                throw new SimulatedCrash(event.phase());
            }
        }
    }
}
