package dev.oncepay.provider.webhook;

import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.RefundStatus;
import java.util.Objects;
import java.util.Optional;

/**
 * A verified provider event, whatever its provider's format ({@link WebhookFormat}): what it
 * identifies, and what it says about one of our payments, if anything.
 *
 * @param id the provider's event id (the journal's key with the provider id)
 * @param reference oncepay's payment id as the event carries it (for a {@link Kind#REFUND_FACT}: our
 *        refund id); may be absent
 * @param kind what the event means to oncepay
 * @param fact present exactly for {@link Kind#FACT}
 * @param refundFact present exactly for {@link Kind#REFUND_FACT}
 * @param detail why the event is not applied (every kind but {@link Kind#FACT}); for the journal
 * @param json the body as received (UTF-8), for the journal
 */
public record ProviderEvent(String id, String type, String reference, Kind kind, Optional<ChargeFact> fact,
        Optional<RefundFact> refundFact, String detail, String json) {

    /** What an event means to oncepay. */
    public enum Kind {
        /** A final outcome of the payment's charge: applied through the state machine. */
        FACT,
        /** What the provider says of one of our refunds: applied through the refund state machine. */
        REFUND_FACT,
        /** The charge is under way (processing, waiting for the customer): journaled, the payment unchanged. */
        NOT_FINAL,
        /** A type oncepay does not act on: journaled for audit. */
        IGNORED_TYPE,
        /** About something that is not one of this deployment's payments (other mode, no oncepay metadata). */
        NOT_OURS
    }

    /**
     * What an event says about a charge's final outcome.
     *
     * @param outcome {@code SUCCEEDED} or {@code FAILED}
     * @param chargeId the provider's id of the charge, as its adapter records it (may be absent)
     * @param declineCode present only if the provider sent one
     * @param cancelRequired a FAILED charge that the event shows still open to the customer (a Stripe
     *        PaymentIntent at {@code requires_payment_method}) until it is canceled
     */
    public record ChargeFact(PaymentStatus outcome, String chargeId, long amount, String currency,
            String declineCode, boolean cancelRequired) {
        public ChargeFact {
            if (outcome != PaymentStatus.SUCCEEDED && outcome != PaymentStatus.FAILED) {
                throw new IllegalArgumentException("a charge fact is final: " + outcome);
            }
            if (cancelRequired && (outcome != PaymentStatus.FAILED || chargeId == null)) {
                throw new IllegalArgumentException("only a FAILED charge the event names can be left open");
            }
        }

        /** A fact that leaves no charge open to the customer. */
        public ChargeFact(PaymentStatus outcome, String chargeId, long amount, String currency, String declineCode) {
            this(outcome, chargeId, amount, currency, declineCode, false);
        }
    }

    /**
     * What an event says about one of our refunds.
     *
     * @param outcome {@code SUCCEEDED} or {@code FAILED}; {@code PENDING} while the provider has not
     *        finished it (journaled, the refund unchanged)
     * @param refundId the provider's id of the refund
     * @param failureCode for {@code FAILED}: the provider's reason, if it gave one
     */
    public record RefundFact(RefundStatus outcome, String refundId, long amount, String currency,
            String failureCode) {
        public RefundFact {
            if (outcome != RefundStatus.SUCCEEDED && outcome != RefundStatus.FAILED && outcome != RefundStatus.PENDING) {
                throw new IllegalArgumentException("a refund fact is final or pending: " + outcome);
            }
            Objects.requireNonNull(refundId, "refundId");
        }

        public boolean isFinal() {
            return outcome != RefundStatus.PENDING;
        }
    }

    public ProviderEvent {
        Objects.requireNonNull(id);
        Objects.requireNonNull(type);
        if (fact.isPresent() != (kind == Kind.FACT)) {
            throw new IllegalArgumentException("a fact exactly for kind FACT");
        }
        if (refundFact.isPresent() != (kind == Kind.REFUND_FACT)) {
            throw new IllegalArgumentException("a refund fact exactly for kind REFUND_FACT");
        }
    }

    public static ProviderEvent refundFact(String id, String type, String refundReference, RefundFact fact,
            String json) {
        return new ProviderEvent(id, type, Objects.requireNonNull(refundReference), Kind.REFUND_FACT, Optional.empty(),
                Optional.of(fact), null, json);
    }

    public static ProviderEvent fact(String id, String type, String reference, ChargeFact fact, String json) {
        return new ProviderEvent(id, type, Objects.requireNonNull(reference), Kind.FACT, Optional.of(fact), Optional.empty(), null, json);
    }

    public static ProviderEvent notFinal(String id, String type, String reference, String detail, String json) {
        return new ProviderEvent(id, type, Objects.requireNonNull(reference), Kind.NOT_FINAL, Optional.empty(), Optional.empty(), detail,
                json);
    }

    public static ProviderEvent ignoredType(String id, String type, String reference, String json) {
        return new ProviderEvent(id, type, reference, Kind.IGNORED_TYPE, Optional.empty(), Optional.empty(),
                "type " + type + " is not applied", json);
    }

    public static ProviderEvent notOurs(String id, String type, String reference, String detail, String json) {
        return new ProviderEvent(id, type, reference, Kind.NOT_OURS, Optional.empty(), Optional.empty(), detail, json);
    }
}
