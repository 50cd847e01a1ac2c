package dev.oncepay.payment;

import java.time.Instant;
import java.util.OptionalLong;

/**
 * One conditional move of a payment: from the status it is expected to have to the next one,
 * with the facts that justify it. Applying it is a single conditional UpdateItem.
 *
 * @param fenceEpoch if present, the write also requires this lease epoch (charge runs are fenced)
 * @param nextCheckAt when the sweep should look again; {@code null} for a settled payment, except a
 *        FAILED one the sweep watches (see {@link PaymentStatus#isSweepable()})
 * @param customerAction set with a move to UNKNOWN that waits for the customer; {@code null} otherwise
 * @param reviewReason why, for a move to NEEDS_REVIEW (required), or for a move to UNKNOWN on the
 *        way there (so the sweep that finishes it keeps the writer's reason); {@code null} otherwise
 * @param cancelPending a move to FAILED whose provider charge must still be canceled: the payment
 *        stays in the sweep index ({@code nextCheckAt}) until the cancel is confirmed
 */
public record Transition(
        PaymentStatus from,
        PaymentStatus to,
        String providerPaymentId,
        String declineCode,
        String reason,
        Instant nextCheckAt,
        OptionalLong fenceEpoch,
        CustomerAction customerAction,
        ReviewReason reviewReason,
        boolean cancelPending) {

    /** A move that leaves no provider charge to cancel. */
    public Transition(PaymentStatus from, PaymentStatus to, String providerPaymentId, String declineCode,
            String reason, Instant nextCheckAt, OptionalLong fenceEpoch, CustomerAction customerAction,
            ReviewReason reviewReason) {
        this(from, to, providerPaymentId, declineCode, reason, nextCheckAt, fenceEpoch, customerAction, reviewReason,
                false);
    }

    /**
     * To FAILED with the provider's charge {@code providerPaymentId} still open: due for the sweep's
     * cancel at {@code cancelCheckAt}.
     */
    public static Transition failedCancelPending(PaymentStatus from, String providerPaymentId, String declineCode,
            String reason, Instant cancelCheckAt, OptionalLong fenceEpoch) {
        return new Transition(from, PaymentStatus.FAILED, providerPaymentId, declineCode, reason, cancelCheckAt,
                fenceEpoch, null, null, true);
    }

    /** A move that hands the customer nothing to do. */
    public Transition(PaymentStatus from, PaymentStatus to, String providerPaymentId, String declineCode,
            String reason, Instant nextCheckAt, OptionalLong fenceEpoch) {
        this(from, to, providerPaymentId, declineCode, reason, nextCheckAt, fenceEpoch, null, null);
    }

    /** A move with what the customer must do, and no review. */
    public Transition(PaymentStatus from, PaymentStatus to, String providerPaymentId, String declineCode,
            String reason, Instant nextCheckAt, OptionalLong fenceEpoch, CustomerAction customerAction) {
        this(from, to, providerPaymentId, declineCode, reason, nextCheckAt, fenceEpoch, customerAction, null);
    }

    /** An unfenced move to NEEDS_REVIEW (keeping the recorded provider facts), and why. */
    public static Transition toReview(PaymentStatus from, String providerPaymentId, String reason, ReviewReason why) {
        return new Transition(from, PaymentStatus.NEEDS_REVIEW, providerPaymentId, null, reason, null,
                OptionalLong.empty(), null, why);
    }

    public Transition {
        if (from != to && !from.canMoveTo(to)) {
            throw new IllegalStateException("payment cannot move from " + from + " to " + to);
        }
        if (cancelPending && (to != PaymentStatus.FAILED || providerPaymentId == null)) {
            throw new IllegalArgumentException("only a move to FAILED with the provider's charge has a cancel pending");
        }
        if ((to.isUnsettled() || cancelPending) && nextCheckAt == null) {
            throw new IllegalArgumentException("an unsettled payment or a pending cancel needs a next check time");
        }
        if (nextCheckAt != null && !to.isSweepable()) {
            throw new IllegalArgumentException("a " + to + " payment has no next check time");
        }
        if (to == PaymentStatus.NEEDS_REVIEW && from != to && reviewReason == null) {
            throw new IllegalArgumentException("a move to review needs its review reason");
        }
        if (reviewReason != null && to != PaymentStatus.NEEDS_REVIEW && to != PaymentStatus.UNKNOWN) {
            throw new IllegalArgumentException("only a move to review, or to UNKNOWN on the way there, has a review reason");
        }
    }
}
