package dev.oncepay.cancel;

import dev.oncepay.payment.Actor;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ReviewReason;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.spi.CancelOutcome;
import dev.oncepay.provider.spi.CancelResult;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Cancels the provider charge of a FAILED payment that stays open to the customer (cancel
 * pending), so a payment oncepay answered {@code failed} cannot be paid later with the client
 * secret. The charge run sends it right after recording FAILED; the sweep sends it until the
 * provider confirms, also for a FAILED that a webhook recorded (the webhook function calls no
 * provider).
 *
 * <p>Canceled: the cancel pending ends (one conditional write). Refused because the charge
 * succeeded meanwhile: a conflicting fact, FAILED → NEEDS_REVIEW ({@code conflicting_facts}, the
 * review alarm). No answer: the payment stays due; a store failure here too (the sweep repeats the
 * cancel, which is harmless).
 */
@ApplicationScoped
public class DeclinedChargeCancel {
    private static final Logger LOG = Logger.getLogger(DeclinedChargeCancel.class);

    private final PaymentRepository payments;
    private final ProviderGateway provider;
    private final Clock clock;

    public DeclinedChargeCancel(PaymentRepository payments, ProviderGateway provider, Clock clock) {
        this.payments = payments;
        this.provider = provider;
        this.clock = clock;
    }

    /**
     * What the cancel established, and the payment as it now stands for an answer (in review when
     * the charge succeeded, even if that write failed: the sweep records it then).
     */
    public record Cancel(CancelOutcome outcome, Payment payment) {
    }

    /** Sends the cancel of {@code failed}'s charge by {@code deadline} and records what it established. */
    public Cancel cancel(Payment failed, Actor by, Instant deadline) {
        if (!failed.cancelPending()) {
            throw new IllegalArgumentException("payment " + failed.id() + " has no cancel pending");
        }
        CancelResult result = provider.cancel(failed, failed.checkAttempts(), deadline);
        Instant now = clock.instant();
        try {
            return switch (result.outcome()) {
                case CANCELED -> {
                    payments.confirmCancel(failed.id(), failed.providerPaymentId(), by,
                            "declined charge canceled at the provider: " + result.detail(), now);
                    yield new Cancel(CancelOutcome.CANCELED, failed);
                }
                case LOST_TO_SUCCESS -> new Cancel(CancelOutcome.LOST_TO_SUCCESS, toReview(failed, result, by, now));
                case NOT_CANCELED -> new Cancel(CancelOutcome.NOT_CANCELED, failed);
            };
        } catch (SdkException storeFailed) {
            LOG.warnf("store failed recording the cancel of paymentId=%s (%s): %s; the sweep cancels again",
                    failed.id(), result.outcome(), storeFailed.getMessage());
            return new Cancel(result.outcome(), result.outcome() == CancelOutcome.LOST_TO_SUCCESS
                    ? inReview(failed, reason(failed, result), now) : failed);
        }
    }

    private Payment toReview(Payment failed, CancelResult result, Actor by, Instant now) {
        String reason = reason(failed, result);
        if (payments.apply(failed.id(), failed.tenant(), Transition.toReview(PaymentStatus.FAILED, failed.providerPaymentId(), reason,
                ReviewReason.CONFLICTING_FACTS), by, now)) {
            LOG.errorf("payment %s moved to NEEDS_REVIEW: %s", failed.id(), reason);
        }
        return payments.find(failed.id()).orElseGet(() -> inReview(failed, reason, now));
    }

    private static String reason(Payment failed, CancelResult result) {
        return "conflicting facts: recorded FAILED (" + failed.declineCode() + "), but the cancel of its charge "
                + failed.providerPaymentId() + " was refused because it succeeded: " + result.detail();
    }

    private static Payment inReview(Payment p, String reason, Instant now) {
        return new Payment(p.id(), p.tenant(), PaymentStatus.NEEDS_REVIEW, p.amount(), p.currency(), p.reference(),
                p.description(), p.providerPaymentId(), null, reason, p.createdAt(), now, p.leaseEpoch(),
                p.checkAttempts(), p.providerAccount(), p.leaseExpiresAt(), p.instrument(), null,
                ReviewReason.CONFLICTING_FACTS);
    }
}
