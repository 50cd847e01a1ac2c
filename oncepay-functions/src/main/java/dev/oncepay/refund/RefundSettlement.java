package dev.oncepay.refund;

import dev.oncepay.payment.Actor;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.Refund;
import dev.oncepay.payment.RefundRepository;
import dev.oncepay.payment.RefundStatus;
import dev.oncepay.payment.RefundTransition;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Applies what the provider says of a refund — in a refund run's answer, a webhook or a sweep's
 * lookup — through the refund state machine ({@link RefundStatus#onProviderFact}). A move to FAILED
 * releases the reservation first: a crash between the two leaves a refund still holding nothing
 * it could lose, and the next writer finds the release done. Every write is conditional on the
 * status read, so racing writers end in one state and nothing moves backwards.
 */
@ApplicationScoped
public class RefundSettlement {
    private static final Logger LOG = Logger.getLogger(RefundSettlement.class);
    /** Re-reads after a lost conditional write before leaving the refund to the next writer. */
    private static final int ROUNDS = 3;

    private final RefundRepository refunds;
    private final Clock clock;

    public RefundSettlement(RefundRepository refunds, Clock clock) {
        this.refunds = refunds;
        this.clock = clock;
    }

    /** What applying a fact did. */
    public enum Applied {
        /** The fact moved the refund. */
        APPLIED,
        /** The refund already records it: nothing changed. */
        ALREADY_SETTLED,
        /** The fact contradicts the refund (another outcome after a failure, amount, refund id): now in review. */
        CONFLICT,
        /** The refund waits for a human: nothing changed. */
        UNDER_REVIEW,
        /** No such refund. */
        UNKNOWN_REFUND,
        /** The refund belongs to another provider account than the one that spoke: nothing changed. */
        OTHER_ACCOUNT
    }

    /**
     * A final fact ({@code SUCCEEDED} or {@code FAILED}) about refund {@code refundId}.
     *
     * @param amount the amount the provider reports; {@code null} if it did not say
     * @throws IllegalStateException the refund kept changing under every round (the caller retries)
     */
    public Applied apply(String refundId, RefundStatus fact, String providerRefundId, String failureCode, Long amount,
            Actor by, String source) {
        return apply(refundId, null, fact, providerRefundId, failureCode, amount, by, source);
    }

    /**
     * As {@link #apply(String, RefundStatus, String, String, Long, Actor, String)}, for a fact only
     * {@code speaker} vouches for (a webhook signed with its secret): a refund of another account
     * is not moved.
     */
    public Applied apply(String refundId, ProviderAccount speaker, RefundStatus fact, String providerRefundId,
            String failureCode, Long amount, Actor by, String source) {
        for (int round = 0; round < ROUNDS; round++) {
            Optional<Refund> read = refunds.find(refundId);
            if (read.isEmpty()) {
                return Applied.UNKNOWN_REFUND;
            }
            Refund current = read.get();
            if (speaker != null && !current.providerAccount().equals(speaker)) {
                LOG.warnf("refund %s belongs to %s; a fact of %s is not applied (%s)", refundId,
                        current.providerAccount(), speaker, source);
                return Applied.OTHER_ACCOUNT;
            }
            Optional<Applied> done = applyOnce(current, fact, providerRefundId, failureCode, amount, by, source);
            if (done.isPresent()) {
                return done.get();
            }
        }
        throw new IllegalStateException("refund " + refundId + " kept changing under " + source);
    }

    /** One round on {@code current}; empty if a conditional write lost (read again). */
    private Optional<Applied> applyOnce(Refund current, RefundStatus fact, String providerRefundId, String failureCode,
            Long amount, Actor by, String source) {
        RefundStatus status = current.status();
        Instant now = clock.instant();
        String contradiction = contradiction(current, providerRefundId, amount);
        if (contradiction != null) {
            if (status == RefundStatus.NEEDS_REVIEW) {
                return Optional.of(Applied.UNDER_REVIEW);
            }
            // PENDING has no way to review (a run holds it): UNKNOWN first, review in the next round.
            RefundStatus to = status == RefundStatus.PENDING ? RefundStatus.UNKNOWN : RefundStatus.NEEDS_REVIEW;
            String reason = source + ": " + contradiction;
            boolean moved = refunds.apply(current.id(), current.tenant(), RefundTransition.unfenced(status, to, null, null, reason,
                    to.isUnsettled() ? now : null), by, now);
            if (moved && to == RefundStatus.NEEDS_REVIEW) {
                LOG.warnf("refund %s moved to NEEDS_REVIEW: %s", current.id(), reason);
                return Optional.of(Applied.CONFLICT);
            }
            return Optional.empty();
        }
        RefundStatus next = status.onProviderFact(fact);
        if (next == status) {
            return Optional.of(status == RefundStatus.NEEDS_REVIEW ? Applied.UNDER_REVIEW : Applied.ALREADY_SETTLED);
        }
        String reason;
        if (next == RefundStatus.NEEDS_REVIEW) {
            reason = source + ": the provider reports the refund " + fact + " (" + providerRefundId
                    + "), but it is recorded " + status + " (" + current.statusReason() + ")";
            LOG.warnf("refund %s: %s", current.id(), reason);
        } else {
            reason = source;
        }
        if (next == RefundStatus.FAILED) {
            refunds.release(current); // false: released before, by whoever wrote FAILED or failed to
        }
        RefundTransition move = RefundTransition.unfenced(status, next, providerRefundId,
                next == RefundStatus.FAILED ? failureOrDefault(failureCode) : null, reason, null);
        if (!refunds.apply(current.id(), current.tenant(), move, by, now)) {
            return Optional.empty();
        }
        return Optional.of(next == RefundStatus.NEEDS_REVIEW ? Applied.CONFLICT : Applied.APPLIED);
    }

    private static String failureOrDefault(String failureCode) {
        return failureCode == null ? "failed" : failureCode;
    }

    /** Why the provider's refund is not ours as recorded; {@code null} if nothing contradicts. */
    private static String contradiction(Refund current, String providerRefundId, Long amount) {
        if (amount != null && amount != current.amount()) {
            return "the provider reports an amount of " + amount + " for a refund of " + current.amount();
        }
        if (providerRefundId != null && current.providerRefundId() != null
                && !providerRefundId.equals(current.providerRefundId())) {
            return "the provider reports refund " + providerRefundId + ", but the refund is recorded as "
                    + current.providerRefundId();
        }
        return null;
    }
}
