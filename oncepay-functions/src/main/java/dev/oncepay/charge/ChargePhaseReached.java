package dev.oncepay.charge;

/** Fired (as a synchronous CDI event) when a charge run completes a phase: a hook for tracing and tests. */
public record ChargePhaseReached(String paymentId, ChargePhase phase, long leaseEpoch) {
}
