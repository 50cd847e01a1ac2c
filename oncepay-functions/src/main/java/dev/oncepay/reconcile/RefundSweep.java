package dev.oncepay.reconcile;

import dev.oncepay.config.ReconcileConfig;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository.SweepListing;
import dev.oncepay.payment.Refund;
import dev.oncepay.payment.RefundRepository;
import dev.oncepay.payment.RefundRepository.RefundRecord;
import dev.oncepay.payment.RefundRepository.RefundablePayment;
import dev.oncepay.payment.RefundStatus;
import dev.oncepay.payment.RefundTransition;
import dev.oncepay.provider.NoChargeProof;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.spi.FoundRefund;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.RefundResult;
import dev.oncepay.refund.RefundSettlement;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jboss.logging.Logger;

/**
 * The refunds' part of the sweep: settles refunds whose outcome is unknown ({@code UNKNOWN}), whose
 * run died ({@code PENDING} past twice its lease), and finishes the release of FAILED ones.
 *
 * <p>Per refund: one consistent read, the payment's, at most one lookup and, only for an UNKNOWN
 * refund the provider has no record of while its key is young, one re-send with the refund's own
 * provider key; then conditional writes through {@link RefundSettlement}. "Not found" releases a
 * reservation only once it is a proof — for a PENDING refund after its run's lease and the
 * account's lookup lag, for an UNKNOWN one after the provider's key window — and only after the
 * refund is written FAILED, fenced on what was read: a takeover that fenced it first keeps it, and
 * one that comes later finds it FAILED and sends nothing.
 */
@ApplicationScoped
public class RefundSweep {
    private static final Logger LOG = Logger.getLogger(RefundSweep.class);

    private final RefundRepository refunds;
    private final RefundSettlement settlement;
    private final ProviderGateway provider;
    private final ProviderAccounts accounts;
    private final NoChargeProof proof;
    private final ReconcileConfig config;
    private final Clock clock;

    public RefundSweep(RefundRepository refunds, RefundSettlement settlement,
            ProviderGateway provider, ProviderAccounts accounts, NoChargeProof proof, ReconcileConfig config,
            Clock clock) {
        this.refunds = refunds;
        this.settlement = settlement;
        this.provider = provider;
        this.accounts = accounts;
        this.proof = proof;
        this.config = config;
        this.clock = clock;
    }

    /** What the sweep did with one refund. */
    enum Outcome {
        SUCCEEDED, FAILED, NEEDS_REVIEW, DEFERRED, RELEASED, SKIPPED
    }

    /**
     * One sweep over the due refunds, until {@code deadline}: the refunds' line of the sweep's summary.
     */
    SweepSummary.Refunds sweep(Instant deadline) {
        Tally tally = new Tally();
        List<SweepListing> due = due(clock.instant(), tally);
        for (SweepListing listing : due) {
            if (!clock.instant().isBefore(deadline)) {
                tally.notStarted++;
                continue;
            }
            tally.examined++;
            try {
                tally.count(reconcile(listing.id(), tally, deadline));
            } catch (RuntimeException e) {
                tally.errors++;
                LOG.errorf(e, "reconcile refundId=%s failed; left for the next sweep", listing.id());
            }
        }
        return tally.summary();
    }

    private static final class Tally {
        int examined;
        int succeeded;
        int failed;
        int needsReview;
        int deferred;
        int released;
        int resent;
        int errors;
        int notStarted;

        void count(Outcome outcome) {
            switch (outcome) {
                case SUCCEEDED -> succeeded++;
                case FAILED -> failed++;
                case NEEDS_REVIEW -> needsReview++;
                case DEFERRED -> deferred++;
                case RELEASED -> released++;
                case SKIPPED -> { }
            }
        }

        SweepSummary.Refunds summary() {
            return new SweepSummary.Refunds(examined, new SweepSummary.Settled(succeeded, failed, needsReview),
                    deferred, released, resent, errors, notStarted);
        }
    }

    /** The due refunds over all shards, oldest first, at most a batch (one Query per shard). */
    private List<SweepListing> due(Instant now, Tally tally) {
        int batch = ReconcileUseCase.batch(config);
        return ReconcileUseCase.oldestDue(refunds.sweepShards(), shard -> refunds.dueForCheck(shard, now, batch), batch,
                () -> tally.errors++, "refund sweep");
    }

    Outcome reconcile(String refundId, Tally tally, Instant deadline) {
        Optional<RefundRecord> read = refunds.findRecord(refundId);
        Instant now = clock.instant();
        if (read.isEmpty() || !read.get().dueAt(now)) {
            return Outcome.SKIPPED;
        }
        Refund refund = read.get().refund();
        if (refund.status() == RefundStatus.FAILED) {
            refunds.release(refund); // its FAILED write committed, the release after it may not have
            refunds.unlist(refund);
            return Outcome.RELEASED;
        }
        if (!refund.status().isUnsettled()) {
            return Outcome.SKIPPED;
        }
        if (refund.status() == RefundStatus.UNKNOWN && givenUp(refund, now)) {
            return review(refund, "reconcile: no final answer from the provider after " + refund.checkAttempts()
                    + " checks");
        }
        // One read of the payment's item: the reservation a PENDING refund may hold, and the charge to look up.
        Optional<RefundablePayment> payment = refunds.findPayment(refund.paymentId());
        if (refund.status() == RefundStatus.PENDING
                && payment.map(p -> !p.reservations().holds().contains(refund.id())).orElse(true)) {
            // Its run died before its reservation (or gave it back unsent): no run sent it.
            return fenced(refund, RefundStatus.FAILED, null, Refund.NOT_SENT, "reconcile: the refund run (epoch "
                    + refund.leaseEpoch() + ") ended without a reservation; nothing was sent", null);
        }
        if (payment.isEmpty() || !accounts.reaches(refund.providerAccount())) {
            return defer(refund, now, "its payment's provider account is not reached by this deployment");
        }
        List<FoundRefund> found;
        try {
            found = provider.refundsFor(refund, payment.get().payment(), deadline).stream()
                    .filter(f -> f.reference() == null || f.reference().equals(refund.id())).toList();
        } catch (RuntimeException fault) {
            return defer(refund, now, "refund lookup failed: " + fault.getClass().getSimpleName());
        }
        if (found.size() > 1) {
            return review(refund, "reconcile: the provider holds " + found.size() + " refunds for this one: "
                    + found.stream().map(FoundRefund::id).toList());
        }
        if (found.size() == 1) {
            return fact(refund, found.get(0), now);
        }
        return notFound(refund, payment.get().payment(), tally, now, deadline);
    }

    private Outcome fact(Refund refund, FoundRefund found, Instant now) {
        if (found.outcome() == ProviderOutcome.SUCCEEDED || found.outcome() == ProviderOutcome.FAILED) {
            return settled(refund, found.outcome(), found.id(), found.failureCodeOrStatus(), found.amount(),
                    "reconcile: the provider's refund " + found.id() + " is " + found.providerStatus());
        }
        if (refund.status() == RefundStatus.PENDING) {
            // Sent by the dead run and under way at the provider: what an unanswered call is.
            return fenced(refund, RefundStatus.UNKNOWN, found.id(), null, "reconcile: the provider's refund "
                    + found.id() + " is " + found.providerStatus(), now.plus(ReconcileUseCase.backoff(config, 0)));
        }
        return defer(refund, now, "the provider's refund " + found.id() + " is " + found.providerStatus());
    }

    /**
     * The provider has no refund for it. A PENDING refund's client saw an error, not a 202: never
     * re-sent; failed once that is a proof. An UNKNOWN one's client holds a 202: re-sent with its own
     * provider key while the provider remembers the key, failed once the key window has passed.
     */
    private Outcome notFound(Refund refund, Payment payment, Tally tally, Instant now, Instant deadline) {
        if (refund.status() == RefundStatus.PENDING) {
            Instant provenAt = refund.leaseExpiresAt().plus(proof.lag(refund.providerAccount()));
            if (now.isBefore(provenAt)) {
                return deferUntil(refund, provenAt, "no refund at the provider yet; final at " + provenAt);
            }
            return fenced(refund, RefundStatus.FAILED, null, Refund.NOT_REFUNDED, "reconcile: the refund run (epoch "
                    + refund.leaseEpoch() + ") died before an answer and the provider has no refund after its lease"
                    + " ended; nothing was refunded", now);
        }
        Instant resendUntil = earliest(refund.createdAt().plus(config.resendHorizon()),
                refund.createdAt().plus(config.providerIdempotencyWindow()).minus(config.windowMargin()));
        if (now.isBefore(resendUntil)) {
            tally.resent++;
            RefundResult result = provider.refund(refund, payment, deadline);
            return switch (result.outcome()) {
                case SUCCEEDED, FAILED -> settled(refund, result.outcome(), result.providerRefundId(),
                        result.failureCode(), null, "reconcile: not found at the provider; re-sent with the same"
                                + " provider key");
                case NEEDS_REVIEW -> review(refund, "reconcile: re-sent, and the provider answered: " + result.detail());
                case UNKNOWN, NOT_SENT -> defer(refund, now, "re-sent without a final answer: " + result.detail());
            };
        }
        Instant provenAt = refund.createdAt().plus(config.providerIdempotencyWindow())
                .plus(longest(config.windowMargin(), proof.lag(refund.providerAccount())));
        if (now.isBefore(provenAt)) {
            return deferUntil(refund, provenAt, "no refund at the provider; past the re-send horizon, final at "
                    + provenAt);
        }
        return fenced(refund, RefundStatus.FAILED, null, Refund.NOT_REFUNDED, "reconcile: the provider has no refund"
                + " for it past its idempotency window; nothing was refunded", now);
    }

    private Outcome settled(Refund refund, ProviderOutcome outcome, String providerRefundId, String failureCode,
            Long amount, String reason) {
        RefundStatus fact = outcome == ProviderOutcome.SUCCEEDED ? RefundStatus.SUCCEEDED : RefundStatus.FAILED;
        if (refund.status() == RefundStatus.PENDING) {
            // A dead run's refund: fenced on its epoch, so a takeover that fenced it first settles it itself.
            return fenced(refund, fact, providerRefundId, fact == RefundStatus.FAILED ? failureCode : null, reason,
                    fact == RefundStatus.FAILED ? clock.instant() : null);
        }
        return switch (settlement.apply(refund.id(), fact, providerRefundId, failureCode, amount, Actor.SWEEP, reason)) {
            case APPLIED -> fact == RefundStatus.SUCCEEDED ? Outcome.SUCCEEDED : Outcome.FAILED;
            case CONFLICT -> Outcome.NEEDS_REVIEW;
            default -> Outcome.SKIPPED;
        };
    }

    /**
     * A move of {@code refund} conditional on its status and lease epoch as read. A move to FAILED
     * whose reservation may be held is written listed ({@code nextCheckAt}), then released, then
     * unlisted: a crash between leaves it to the next sweep.
     */
    private Outcome fenced(Refund refund, RefundStatus to, String providerRefundId, String failureCode, String reason,
            Instant nextCheckAt) {
        Instant now = clock.instant();
        RefundTransition move = new RefundTransition(refund.status(), to, providerRefundId, failureCode, reason,
                nextCheckAt, OptionalLong.of(refund.leaseEpoch()));
        if (!refunds.apply(refund.id(), refund.tenant(), move, Actor.SWEEP, now)) {
            return Outcome.SKIPPED; // a takeover, a webhook or another sweep moved it first
        }
        LOG.infof("reconcile refundId=%s %s -> %s: %s", refund.id(), refund.status(), to, reason);
        if (to == RefundStatus.FAILED) {
            if (nextCheckAt != null) {
                refunds.release(refund);
                refunds.unlist(refund);
            }
            return Outcome.FAILED;
        }
        return to == RefundStatus.SUCCEEDED ? Outcome.SUCCEEDED : Outcome.DEFERRED;
    }

    private Outcome review(Refund refund, String reason) {
        Instant now = clock.instant();
        if (refund.status() == RefundStatus.PENDING) {
            // No PENDING -> NEEDS_REVIEW: UNKNOWN first, reviewed when next due (at once).
            return fenced(refund, RefundStatus.UNKNOWN, null, null, "on the way to review: " + reason, now);
        }
        if (!refunds.apply(refund.id(), refund.tenant(), RefundTransition.unfenced(refund.status(), RefundStatus.NEEDS_REVIEW, null,
                null, reason, null), Actor.SWEEP, now)) {
            return Outcome.SKIPPED;
        }
        LOG.warnf("refund %s moved to NEEDS_REVIEW: %s", refund.id(), reason);
        return Outcome.NEEDS_REVIEW;
    }

    private boolean givenUp(Refund refund, Instant now) {
        return refund.checkAttempts() >= config.maxAttempts()
                || refund.statusReason() != null && refund.statusReason().startsWith("on the way to review: ")
                || !now.isBefore(refund.createdAt().plus(config.maxAge()));
    }

    private Outcome defer(Refund refund, Instant now, String reason) {
        return deferUntil(refund, now.plus(ReconcileUseCase.backoff(config, refund.checkAttempts())), reason);
    }

    private Outcome deferUntil(Refund refund, Instant next, String reason) {
        if (!refunds.defer(refund, next)) {
            return Outcome.SKIPPED;
        }
        LOG.infof("reconcile refundId=%s: %s; check %d at %s", refund.id(), reason, refund.checkAttempts() + 1, next);
        return Outcome.DEFERRED;
    }

    private static Instant earliest(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    private static java.time.Duration longest(java.time.Duration a, java.time.Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
