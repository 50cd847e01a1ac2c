package dev.oncepay.payment;

import java.time.Instant;
import java.util.OptionalLong;

/**
 * One conditional move of a payment: from the status it is expected to have to the next one,
 * with the facts that justify it. Applying it is a single conditional UpdateItem.
 *
 * @param fenceEpoch if present, the write also requires this lease epoch (charge runs are fenced)
 * @param nextCheckAt when the sweep should look again; {@code null} for a settled payment
 * @param customerAction set with a move to UNKNOWN that waits for the customer; {@code null} otherwise
 */
public record Transition(
        PaymentStatus from,
        PaymentStatus to,
        String providerPaymentId,
        String declineCode,
        String reason,
        Instant nextCheckAt,
        OptionalLong fenceEpoch,
        CustomerAction customerAction) {

    /** A move that hands the customer nothing to do. */
    public Transition(PaymentStatus from, PaymentStatus to, String providerPaymentId, String declineCode,
            String reason, Instant nextCheckAt, OptionalLong fenceEpoch) {
        this(from, to, providerPaymentId, declineCode, reason, nextCheckAt, fenceEpoch, null);
    }

    public Transition {
        if (from != to && !from.canMoveTo(to)) {
            throw new IllegalStateException("payment cannot move from " + from + " to " + to);
        }
        if (to.isUnsettled() != (nextCheckAt != null)) {
            throw new IllegalArgumentException("an unsettled payment needs a next check time, a settled one none");
        }
    }
}
