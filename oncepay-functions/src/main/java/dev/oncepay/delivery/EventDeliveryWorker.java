package dev.oncepay.delivery;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Metrics;
import dev.oncepay.events.MerchantEndpoint;
import dev.oncepay.events.MerchantEndpoints;
import dev.oncepay.queue.EventDeliveryJob;
import dev.oncepay.queue.EventQueue;
import jakarta.enterprise.context.ApplicationScoped;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * One message of the event queue: one event for one endpoint. Due and the endpoint not resting, it
 * is signed and posted; the attempt is recorded, and a failed one is put back as a message of its
 * own with the next attempt's delay (exponential, full jitter), until the delivery horizon, after
 * which the delivery is dead. A wait (not yet due, a resting endpoint) is a message too, so no
 * worker ever sleeps on an endpoint. Only the worker's own failures (the store, the queue, an
 * unreadable message) throw, failing the message for the queue to hand out again.
 *
 * <p>Log lines name the event, endpoint, tenant, attempt and answer; never the body, a secret or the URL.
 */
@ApplicationScoped
public class EventDeliveryWorker {
    private static final Logger LOG = Logger.getLogger(EventDeliveryWorker.class);
    /** SQS counts delays in whole seconds: a put-back waits at least one, so nothing is polled hot. */
    private static final Duration SHORTEST_DELAY = Duration.ofSeconds(1);
    /** A SnapStart restore reseeds it, so restored sandboxes do not draw the same delays. */
    private static final SecureRandom JITTER = new SecureRandom();

    /** What became of one message. */
    public enum Outcome {
        /** Acknowledged by the endpoint. */
        DELIVERED,
        /** The attempt failed; put back for the next one. */
        RETRYING,
        /** The attempt failed past the horizon: no more attempts. */
        DEAD,
        /** A failed attempt of a delivery already acknowledged: not retried. */
        ALREADY_DELIVERED,
        /** Not yet due: put back with what is left of its wait. */
        WAITING,
        /** The endpoint rests (or another delivery probes it): put back, not called. */
        RESTING,
        /** The endpoint is no longer configured: dropped. */
        DROPPED
    }

    private final MerchantEndpoints endpoints;
    private final EndpointCall call;
    private final EndpointHealth health;
    private final DeliveryRepository deliveries;
    private final EventQueue queue;
    private final EmbeddedMetrics metrics;
    private final Clock clock;
    private final Duration retryBase;
    private final Duration retryCap;
    private final Duration horizon;

    public EventDeliveryWorker(MerchantEndpoints endpoints, EndpointCall call, EndpointHealth health,
            DeliveryRepository deliveries, EventQueue queue, EmbeddedMetrics metrics, Clock clock, OncepayConfig config) {
        this.endpoints = endpoints;
        this.call = call;
        this.health = health;
        this.deliveries = deliveries;
        this.queue = queue;
        this.metrics = metrics;
        this.clock = clock;
        this.retryBase = config.events().retryDelayBase();
        this.retryCap = config.events().retryDelayCap();
        this.horizon = config.events().deliveryHorizon();
    }

    /**
     * @throws IllegalArgumentException the message is no delivery job
     * @throws RuntimeException the store or the queue failed: the message fails, and the queue hands
     *         it out again after its visibility timeout (to the dead-letter queue after its last receive)
     */
    public Outcome deliver(EventDeliveryJob job) {
        requireReadable(job);
        Optional<MerchantEndpoint> configured = endpoints.find(job.tenant(), job.endpoint());
        if (configured.isEmpty()) {
            LOG.infof("eventId=%s endpoint=%s tenant=%s dropped: the endpoint is not configured", job.eventId(),
                    job.endpoint(), job.tenant());
            return Outcome.DROPPED;
        }
        MerchantEndpoint endpoint = configured.get();
        Instant now = clock.instant();
        if (job.dueAtMs() > now.toEpochMilli()) {
            // EventQueue sends at most SQS's 15 minutes: a longer wait arrives early and is sent on again.
            queue.send(job, wholeSeconds(Duration.ofMillis(job.dueAtMs() - now.toEpochMilli())));
            return Outcome.WAITING;
        }
        EndpointState seen = health.state(job.tenant(), job.endpoint());
        if (seen.restingAt(now)) {
            return rest(job, seen.restUntil(), now);
        }
        if (seen.consecutiveFailures() > 0 && !health.claimProbe(job.tenant(), job.endpoint(), seen)) {
            return rest(job, health.state(job.tenant(), job.endpoint()).restUntil(), now);
        }
        int attempt = job.attempt() + 1;
        Instant signedAt = clock.instant();
        String signature = EventSigner.header(endpoint.secrets(), job.body(), signedAt.getEpochSecond());
        CallOutcome outcome = call.post(endpoint, job.eventId(), job.body(), signature);
        Instant answeredAt = clock.instant();
        if (outcome instanceof CallOutcome.Acknowledged) {
            deliveries.recordAttempt(job, DeliveryStatus.DELIVERED, answeredAt, outcome.lastAnswer(), Optional.empty());
            metrics.measure(Metrics.EVENT_DELIVERY_LAG, Math.max(0, answeredAt.toEpochMilli() - job.eventAtMs()),
                    "Milliseconds", Map.of());
            health.succeeded(job.tenant(), job.endpoint(), seen);
            LOG.infof("eventId=%s endpoint=%s tenant=%s attempt=%d delivered: %s", job.eventId(), job.endpoint(),
                    job.tenant(), attempt, outcome.lastAnswer());
            return Outcome.DELIVERED;
        }
        return failed(job, attempt, outcome.lastAnswer(), seen, answeredAt);
    }

    private Outcome failed(EventDeliveryJob job, int attempt, String answer, EndpointState seen, Instant now) {
        metrics.count(Metrics.EVENT_DELIVERY_FAILED);
        health.failed(job.tenant(), job.endpoint(), seen);
        long firstAttemptAtMs = job.firstAttemptAtMs() == 0 ? now.toEpochMilli() : job.firstAttemptAtMs();
        if (now.toEpochMilli() - firstAttemptAtMs >= horizon.toMillis()) {
            if (deliveries.recordAttempt(job, DeliveryStatus.DEAD, now, answer, Optional.empty())
                    == DeliveryRepository.Recorded.ALREADY_DELIVERED) {
                return alreadyDelivered(job, attempt, answer);
            }
            metrics.count(Metrics.EVENT_DELIVERY_DEAD);
            LOG.errorf("eventId=%s endpoint=%s tenant=%s attempt=%d dead: %s, and %s since the first attempt",
                    job.eventId(), job.endpoint(), job.tenant(), attempt, answer, horizon);
            return Outcome.DEAD;
        }
        Duration wait = retryDelay(job.attempt());
        Instant due = now.plus(wait);
        if (deliveries.recordAttempt(job, DeliveryStatus.RETRYING, now, answer, Optional.of(due))
                == DeliveryRepository.Recorded.ALREADY_DELIVERED) {
            return alreadyDelivered(job, attempt, answer);
        }
        queue.send(job.retry(now.toEpochMilli(), due.toEpochMilli()), wait);
        LOG.infof("eventId=%s endpoint=%s tenant=%s attempt=%d failed: %s; next in %d s", job.eventId(), job.endpoint(),
                job.tenant(), attempt, answer, wait.toSeconds());
        return Outcome.RETRYING;
    }

    private Outcome alreadyDelivered(EventDeliveryJob job, int attempt, String answer) {
        LOG.infof("eventId=%s endpoint=%s tenant=%s attempt=%d failed: %s; delivered before, not retried",
                job.eventId(), job.endpoint(), job.tenant(), attempt, answer);
        return Outcome.ALREADY_DELIVERED;
    }

    /** Puts {@code job} back, due when the endpoint's rest ends: no attempt counted, nothing recorded. */
    private Outcome rest(EventDeliveryJob job, Instant restUntil, Instant now) {
        Duration wait = wholeSeconds(Duration.between(now, restUntil));
        queue.send(job.waiting(now.plus(wait).toEpochMilli()), wait);
        return Outcome.RESTING;
    }

    /** Before retry {@code n} (0 after the first failure): {@code random(0, min(cap, base·2^n))}, in whole seconds, at least one. */
    Duration retryDelay(int n) {
        long baseMillis = Math.max(1, retryBase.toMillis());
        long ceiling = Math.min(retryCap.toMillis(), baseMillis << Math.min(Math.max(0, n), 20));
        return wholeSeconds(Duration.ofMillis(JITTER.nextLong(ceiling + 1)));
    }

    /**
     * {@code wait} rounded up to whole seconds, at least one: SQS delays in whole seconds, and a
     * message that arrived a fraction early would only be sent on again.
     */
    static Duration wholeSeconds(Duration wait) {
        long seconds = (wait.toMillis() + 999) / 1000;
        return Duration.ofSeconds(Math.max(SHORTEST_DELAY.toSeconds(), seconds));
    }

    private static void requireReadable(EventDeliveryJob job) {
        if (job == null || blank(job.tenant()) || blank(job.endpoint()) || blank(job.eventId()) || job.body() == null
                || job.attempt() < 0) {
            throw new IllegalArgumentException("not an event delivery job: tenant, endpoint, eventId and body are required");
        }
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}
