package dev.oncepay.reconcile;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What one sweep did: the function's output, and one structured log line per invocation.
 *
 * @param examined due index entries the sweep started on (each re-read consistently)
 * @param settled payments this sweep moved to a final status, by outcome
 * @param deferred payments still unresolved, checked again later (backoff)
 * @param deadLettered payments given up after the attempt or age cap: now {@code NEEDS_REVIEW}
 * @param skipped entries that needed nothing from this sweep: no longer due or settled (stale
 *        index entry, another sweep, a webhook or a charge retry got there first)
 * @param errors entries that failed unexpectedly (left untouched, so the next sweep retries them),
 *        plus shard queries that failed
 * @param resent charges re-sent with the payment's own provider idempotency key (lookup found none)
 * @param canceled declined charges left open (cancel pending) whose cancel the provider confirmed
 * @param notStarted due entries left for the next invocation because the time budget was spent
 * @param refunds what the sweep did with due refunds, after the payments
 */
@RegisterForReflection
public record SweepSummary(
        String trigger,
        int examined,
        Settled settled,
        int deferred,
        int deadLettered,
        int skipped,
        int errors,
        int resent,
        int canceled,
        int notStarted,
        boolean budgetExhausted,
        long elapsedMillis,
        Refunds refunds) {

    /**
     * The refunds' part of a sweep.
     *
     * @param settled refunds moved to a final status, by outcome
     * @param released FAILED refunds whose reservation the sweep gave back after a crash between the two
     * @param resent refunds re-sent with their own provider key (the provider had none)
     */
    @RegisterForReflection
    public record Refunds(int examined, Settled settled, int deferred, int released, int resent, int errors,
            int notStarted) {
    }

    /** @param needsReview contradicting provider facts (several charges, wrong amount, a conflicting webhook) */
    @RegisterForReflection
    public record Settled(int succeeded, int failed, int needsReview) {
        public int total() {
            return succeeded + failed + needsReview;
        }
    }
}
