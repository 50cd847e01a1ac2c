package dev.oncepay.refund;

/** Fired (as a synchronous CDI event) when a refund run completes a phase: a hook for tracing and tests. */
public record RefundPhaseReached(String refundId, RefundPhase phase, long leaseEpoch) {
}
