package dev.oncepay.payment;

import java.time.Instant;

/** One move of a refund as its history records it: when, from where to where, by whom and why. */
public record RefundStep(Instant at, RefundStatus from, RefundStatus to, Actor actor, String reason,
        String providerRefundId, String failureCode) {
}
