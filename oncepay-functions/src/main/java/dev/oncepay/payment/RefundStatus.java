package dev.oncepay.payment;

import java.util.EnumSet;
import java.util.Set;

/**
 * The refund state machine, the only place that says which transitions exist.
 *
 * <pre>
 * PENDING → SUCCEEDED | FAILED | UNKNOWN
 * UNKNOWN → SUCCEEDED | FAILED | NEEDS_REVIEW
 * SUCCEEDED → FAILED          (the provider reports the refund failed after it succeeded: Stripe does)
 * SUCCEEDED | FAILED → NEEDS_REVIEW   (a fact that contradicts the recorded one)
 * </pre>
 *
 * <p>Every status but FAILED holds the refund's amount reserved on its payment: the sum of
 * reservations never exceeds what was captured. FAILED means the provider proved the refund did
 * not happen (or it was never sent), and only a move to FAILED releases the reservation (a FAILED
 * refund stays in the sweep index until its release is done).
 */
public enum RefundStatus {
    /** Reserved and recorded; the provider call has not answered yet. */
    PENDING("pending"),
    /** The provider call ended without a final answer (timeout, 5xx, the provider's own {@code pending}). */
    UNKNOWN("pending"),
    SUCCEEDED("succeeded"),
    FAILED("failed"),
    /** Conflicting facts, or no answer after the sweep's cap: a human decides; the reservation stays. */
    NEEDS_REVIEW("needs_review");

    private final String apiName;

    RefundStatus(String apiName) {
        this.apiName = apiName;
    }

    /** As the HTTP API shows it ({@code pending | succeeded | failed | needs_review}). */
    public String apiName() {
        return apiName;
    }

    public boolean isUnsettled() {
        return this == PENDING || this == UNKNOWN;
    }

    public Set<RefundStatus> successors() {
        return switch (this) {
            case PENDING -> EnumSet.of(SUCCEEDED, FAILED, UNKNOWN);
            case UNKNOWN -> EnumSet.of(SUCCEEDED, FAILED, NEEDS_REVIEW);
            case SUCCEEDED -> EnumSet.of(FAILED, NEEDS_REVIEW);
            case FAILED -> EnumSet.of(NEEDS_REVIEW);
            case NEEDS_REVIEW -> EnumSet.noneOf(RefundStatus.class);
        };
    }

    public boolean canMoveTo(RefundStatus next) {
        return successors().contains(next);
    }

    /**
     * Where a refund goes when the provider reports a final fact ({@code SUCCEEDED} or
     * {@code FAILED}); {@code this} when it changes nothing; {@code NEEDS_REVIEW} when it
     * contradicts a recorded outcome. A success reported after a failure is a contradiction (the
     * reservation is gone); a failure after a success is the provider's own later word.
     */
    public RefundStatus onProviderFact(RefundStatus fact) {
        if (fact != SUCCEEDED && fact != FAILED) {
            throw new IllegalArgumentException("not a final provider fact: " + fact);
        }
        return switch (this) {
            case PENDING, UNKNOWN -> fact;
            case SUCCEEDED -> fact;
            case FAILED -> fact == FAILED ? FAILED : NEEDS_REVIEW;
            case NEEDS_REVIEW -> NEEDS_REVIEW;
        };
    }
}
