package dev.oncepay.wallet;

/** Fired (as a synchronous CDI event) when a wallet run completes a phase: a hook for tracing and tests. */
public record WalletPhaseReached(String operationId, WalletPhase phase, long leaseEpoch) {
}
