package dev.oncepay.charge;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.contract.Metrics;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.order.OrderRefusedException;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.policy.FullJitterBackoff;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.queue.ChargeJob;
import dev.oncepay.queue.ChargeQueue;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * One message of a charge queue: the queued payment's charge, run by {@link ChargeUseCase#runQueued}
 * (the same phases and provider call as a request's), or put back on its queue with a delay when
 * it cannot run now: the account's breaker or bulkhead refuses, or another run holds it. A delay is
 * a new message, so waiting out an outage never counts towards the dead-letter queue; only failures
 * of the worker itself (the store, the queue) do. A message of a payment that is settled, forgotten
 * or past its horizon is done: the sweep settles what the worker no longer may.
 */
@ApplicationScoped
public class ChargeWorker {
    private static final Logger LOG = Logger.getLogger(ChargeWorker.class);
    /** SQS counts delays in whole seconds: a put-back waits at least one, so an open breaker is not polled hot. */
    private static final Duration SHORTEST_DELAY = Duration.ofSeconds(1);

    /** What became of one message. */
    public enum Outcome {
        /** The payment has its outcome (this run's, or an earlier one's). */
        SETTLED,
        /** Put back on its queue with a delay. */
        DELAYED,
        /** Past its horizon (or its delay would pass it): the sweep settles it from the provider's word. */
        LEFT_TO_SWEEP,
        /** The payment is gone: its request forgot it when the queue seemed to refuse the message. */
        GONE
    }

    private final ChargeUseCase charges;
    private final PaymentRepository payments;
    private final ProviderGateway provider;
    private final ChargeQueue queue;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final FullJitterBackoff backoff;

    public ChargeWorker(ChargeUseCase charges, PaymentRepository payments, ProviderGateway provider, ChargeQueue queue,
            Clock clock, EmbeddedMetrics metrics, OncepayConfig config) {
        this.charges = charges;
        this.payments = payments;
        this.provider = provider;
        this.queue = queue;
        this.clock = clock;
        this.metrics = metrics;
        Duration cap = config.queue().retryDelayCap();
        Duration sqsLongest = Duration.ofSeconds(DeploymentSettings.SQS_MAX_DELAY_SECONDS);
        this.backoff = new FullJitterBackoff(config.queue().retryDelayBase(), cap.compareTo(sqsLongest) < 0 ? cap : sqsLongest);
    }

    /**
     * @throws RuntimeException the store or the queue failed: the message fails, and its queue hands it
     *         out again after its visibility timeout (to the dead-letter queue after its last receive)
     */
    public Outcome work(ChargeJob job) {
        Instant now = clock.instant();
        metrics.gauge(Metrics.CHARGE_QUEUE_LAG, Math.max(0, Duration.between(job.queuedAt(), now).toMillis()),
                "Milliseconds");
        Optional<Payment> found = payments.find(job.paymentId());
        if (found.isEmpty()) {
            LOG.infof("paymentId=%s is gone: its request was answered 503 with nothing charged", job.paymentId());
            return Outcome.GONE;
        }
        Payment payment = found.get();
        if (payment.status() != PaymentStatus.PENDING) {
            return Outcome.SETTLED;
        }
        if (!payment.queuedAt(now)) {
            LOG.infof("paymentId=%s is past its queue horizon %s: left to the sweep", payment.id(), payment.queuedUntil());
            return Outcome.LEFT_TO_SWEEP;
        }
        Optional<ProviderRefusal> refusal = provider.chargeRefusal(payment.providerAccount());
        if (refusal.isPresent()) {
            return putBack(job, job.epoch(), payment, refusal.get().detail());
        }
        Optional<ChargeUseCase.QueuedRun> run;
        try {
            run = charges.runQueued(job, payment);
        } catch (RequestInFlightException newerRun) {
            return putBack(job, job.epoch(), payment, "a newer run fences it");
        } catch (OrderRefusedException orderTaken) {
            return Outcome.LEFT_TO_SWEEP;
        }
        if (run.isEmpty()) {
            return putBack(job, job.epoch(), payment, "another run holds its key");
        }
        if (run.get().payment().status() != PaymentStatus.PENDING) {
            return Outcome.SETTLED;
        }
        return putBack(job, run.get().epoch(), payment, "its charge was not sent or not settled");
    }

    private Outcome putBack(ChargeJob job, long epoch, Payment payment, String why) {
        Duration wait = backoff.delayBefore(job.attempt());
        if (wait.compareTo(SHORTEST_DELAY) < 0) {
            wait = SHORTEST_DELAY;
        }
        Instant at = clock.instant().plus(wait);
        if (!at.isBefore(payment.queuedUntil())) {
            LOG.infof("paymentId=%s not put back (%s): its queue horizon %s passes first; left to the sweep",
                    payment.id(), why, payment.queuedUntil());
            return Outcome.LEFT_TO_SWEEP;
        }
        queue.send(payment.providerAccount(), job.again(epoch), wait);
        metrics.count(Metrics.CHARGE_DELAYED);
        LOG.infof("paymentId=%s put back for %d s (attempt %d): %s", payment.id(), wait.toSeconds(), job.attempt() + 1,
                why);
        return Outcome.DELAYED;
    }
}
