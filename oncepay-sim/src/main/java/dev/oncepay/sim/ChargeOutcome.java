package dev.oncepay.sim;

/** The answer to a charge request that reached execution: new, or replayed for its key. */
record ChargeOutcome(int status, String body, boolean replayed) {
}
