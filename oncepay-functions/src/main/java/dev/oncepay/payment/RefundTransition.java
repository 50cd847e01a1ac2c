package dev.oncepay.payment;

import java.time.Instant;
import java.util.OptionalLong;

/**
 * One conditional move of a refund, from the status it is expected to have, with the facts that
 * justify it. Applying it is a single conditional UpdateItem ({@link RefundRepository#apply}).
 *
 * @param nextCheckAt when the sweep looks again: required for an unsettled refund; for a FAILED one
 *        whose reservation is not released yet (the release follows the write), so a crash between
 *        the two leaves it to the sweep; {@code null} otherwise
 * @param fenceEpoch if present, the write also requires this lease epoch (refund runs are fenced)
 */
public record RefundTransition(RefundStatus from, RefundStatus to, String providerRefundId, String failureCode,
        String reason, Instant nextCheckAt, OptionalLong fenceEpoch) {

    public RefundTransition {
        if (!from.canMoveTo(to)) {
            throw new IllegalStateException("refund cannot move from " + from + " to " + to);
        }
        if (to.isUnsettled() && nextCheckAt == null) {
            throw new IllegalArgumentException("an unsettled refund needs a next check time");
        }
        if (nextCheckAt != null && !to.isUnsettled() && to != RefundStatus.FAILED) {
            throw new IllegalArgumentException("a " + to + " refund has no next check time");
        }
    }

    /** An unfenced move of a settled or unsettled refund; {@code nextCheckAt} only for an unsettled one. */
    public static RefundTransition unfenced(RefundStatus from, RefundStatus to, String providerRefundId,
            String failureCode, String reason, Instant nextCheckAt) {
        return new RefundTransition(from, to, providerRefundId, failureCode, reason, nextCheckAt, OptionalLong.empty());
    }
}
