package dev.oncepay.reconcile;

/** Fired (as a synchronous CDI event) when reconciling a payment completes a step: a hook for tracing and tests. */
public record ReconcilePhaseReached(String paymentId, ReconcilePhase phase) {
}
