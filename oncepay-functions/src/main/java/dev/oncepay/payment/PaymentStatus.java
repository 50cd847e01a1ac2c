package dev.oncepay.payment;

import java.util.EnumSet;
import java.util.Set;

/**
 * The payment state machine, the only place that says which transitions exist.
 *
 * <pre>
 * PENDING → SUCCEEDED | FAILED | UNKNOWN
 * UNKNOWN → SUCCEEDED | FAILED | NEEDS_REVIEW
 * SUCCEEDED | FAILED → NEEDS_REVIEW   (only for a conflicting terminal fact; also a charge found for a
 *                                     FAILED payment an operator failed by override, which the sweep watches)
 * NEEDS_REVIEW → SUCCEEDED | FAILED   (only an operator's resolution; automation never leaves review)
 * </pre>
 *
 * <p>FAILED has one sub-state, <em>cancel pending</em> ({@link Payment#cancelPending()}): the
 * provider declined, but its charge stays open to the customer (a Stripe PaymentIntent back at
 * {@code requires_payment_method} can be confirmed again with its client secret). It is recorded
 * with the move to FAILED, keeps the payment in the sweep index, and ends when the provider
 * confirms the cancel (FAILED, canceled) or refuses it because the charge succeeded meanwhile
 * (FAILED → NEEDS_REVIEW, conflicting facts).
 *
 * Every write that moves a payment is a conditional update on the expected current status, so
 * duplicate or out-of-order events and racing sweeps cannot move a payment backwards.
 */
public enum PaymentStatus {
    /** Claimed and recorded; the provider call has not yet produced an answer. */
    PENDING("pending"),
    /** The provider call ended without an answer (timeout, reset, 5xx): reconcile asks later. */
    UNKNOWN("pending"),
    SUCCEEDED("succeeded"),
    FAILED("failed"),
    /** Conflicting facts or given up after the reconcile cap: a human decides. */
    NEEDS_REVIEW("needs_review");

    private final String apiName;

    PaymentStatus(String apiName) {
        this.apiName = apiName;
    }

    /** The status as the HTTP API shows it ({@code pending | succeeded | failed | needs_review}). */
    public String apiName() {
        return apiName;
    }

    public boolean isTerminal() {
        return this == SUCCEEDED || this == FAILED || this == NEEDS_REVIEW;
    }

    /** Still waiting for the truth: the sweep index lists it. */
    public boolean isUnsettled() {
        return this == PENDING || this == UNKNOWN;
    }

    /**
     * Whether the sweep index may list a payment in this status: an unsettled one, and a FAILED one
     * an operator failed on their own word (an override) before the provider's "no charge" was a
     * proof, watched until it is, so a charge showing up later moves it to NEEDS_REVIEW.
     */
    public boolean isSweepable() {
        return isUnsettled() || this == FAILED;
    }

    public Set<PaymentStatus> successors() {
        return switch (this) {
            case PENDING -> EnumSet.of(SUCCEEDED, FAILED, UNKNOWN);
            case UNKNOWN -> EnumSet.of(SUCCEEDED, FAILED, NEEDS_REVIEW);
            case SUCCEEDED, FAILED -> EnumSet.of(NEEDS_REVIEW);
            case NEEDS_REVIEW -> EnumSet.of(SUCCEEDED, FAILED);
        };
    }

    public boolean canMoveTo(PaymentStatus next) {
        return successors().contains(next);
    }

    /**
     * Where a payment goes when the provider reports a final fact ({@code SUCCEEDED} or
     * {@code FAILED}) about it; {@code this} when the fact changes nothing (a duplicate or an
     * out-of-order echo); {@code NEEDS_REVIEW} when it contradicts what is recorded.
     */
    public PaymentStatus onProviderFact(PaymentStatus fact) {
        if (fact != SUCCEEDED && fact != FAILED) {
            throw new IllegalArgumentException("not a final provider fact: " + fact);
        }
        return switch (this) {
            case PENDING, UNKNOWN -> fact;
            case SUCCEEDED, FAILED -> this == fact ? this : NEEDS_REVIEW;
            case NEEDS_REVIEW -> NEEDS_REVIEW;
        };
    }
}
