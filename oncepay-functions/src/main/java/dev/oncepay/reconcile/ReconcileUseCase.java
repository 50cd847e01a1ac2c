package dev.oncepay.reconcile;

import dev.oncepay.cancel.DeclinedChargeCancel;
import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.ReconcileConfig;
import dev.oncepay.contract.Metrics;
import dev.oncepay.events.OutboxSweep;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.CustomerAction;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentRepository.SweepListing;
import dev.oncepay.payment.PaymentRepository.SweepState;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ReviewReason;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.NoChargeProof;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.provider.policy.Jitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The reconcile sweep: finds payments whose outcome is unknown ({@code UNKNOWN}) or whose charge
 * run died ({@code PENDING} past twice its lease), asks the provider, and settles them through
 * the state machine; defers with backoff what it cannot settle yet, and dead-letters what stays
 * unresolved too long.
 *
 * <p>Per payment: one consistent read, at most one lookup ({@code GET /v1/charges?reference=})
 * and, only if the provider has no charge for it, one re-send with the payment's own provider
 * idempotency key; then one conditional write. Every write is conditional on what was read
 * (status; for PENDING also the lease epoch; for a deferral also the attempt count), so racing
 * sweeps, webhooks and charge retries end in one state, and a sweep that dies between any two
 * steps leaves the payment due for the next sweep.
 *
 * <p>Only the provider account that charged a payment is asked about it; a payment of an
 * account this deployment does not reach is deferred (and in the end dead-lettered), never looked
 * up elsewhere.
 *
 * <p>"Not found" is not "failed", and the sweep never starts a charge nobody waits for (design
 * rule 13). Only an UNKNOWN payment, whose client holds a 202, is re-sent: while it is young (the
 * re-send horizon, 1 h by default, and always inside the provider's idempotency window less a
 * margin, measured from the payment's creation, which precedes any charge request) with the
 * payment's own provider idempotency key: the provider executes a key at most once, so this
 * settles a charge that never arrived without risking a second one. Past the horizon nothing is
 * sent; only once the provider's window (plus the margin) has passed is "no charge" final: FAILED
 * {@code not_charged}. A PENDING payment's client saw an error, not a 202, and may have paid again
 * under a new key: it is only asked about. Once no run of ours can still be sending it (its fence's
 * lease has ended) and the provider's lookups have had time to show a charge (its account's lookup lag),
 * "no charge" is final: FAILED {@code not_charged}. Until then the client's own retry may take it
 * over and charge it. When "no charge" is a proof is {@link NoChargeProof}'s one rule, shared with
 * the operator's resolution.
 *
 * <p>The index also lists a FAILED payment an operator failed by override before "no charge" was a
 * proof: it is watched, only asked about (never re-sent, never dead-lettered). A succeeded charge
 * moves it to NEEDS_REVIEW; a failed charge, or "no charge" once proven, takes it out of the index.
 */
@ApplicationScoped
public class ReconcileUseCase {
    private static final Logger LOG = Logger.getLogger(ReconcileUseCase.class);
    /** Re-reads after a lost conditional write before leaving the payment to the next sweep. */
    private static final int MAX_ROUNDS = 3;

    private final PaymentRepository payments;
    private final ProviderGateway provider;
    private final Event<ReconcilePhaseReached> phases;
    private final Clock clock;
    private final ReconcileConfig config;
    private final EmbeddedMetrics metrics;
    private final ProviderAccounts accounts;
    private final Backlog backlog;
    private final DeclinedChargeCancel cancels;
    private final NoChargeProof proof;
    private final RefundSweep refundSweep;
    private final OutboxSweep outbox;

    public ReconcileUseCase(PaymentRepository payments, ProviderGateway provider, Event<ReconcilePhaseReached> phases,
            Clock clock, ReconcileConfig config, EmbeddedMetrics metrics, ProviderAccounts accounts, Backlog backlog,
            DeclinedChargeCancel cancels, NoChargeProof proof, RefundSweep refundSweep,
            OutboxSweep outbox) {
        this.outbox = outbox;
        this.refundSweep = refundSweep;
        this.cancels = cancels;
        this.proof = proof;
        this.metrics = metrics;
        this.backlog = backlog;
        this.accounts = accounts;
        this.payments = payments;
        this.provider = provider;
        this.phases = phases;
        this.clock = clock;
        this.config = config;
    }

    /**
     * One sweep over every shard, bounded by the batch size and the time budget; then the backlog
     * gauges, from the whole attention index as the sweep left it.
     */
    public SweepSummary sweep(String trigger) {
        Instant started = clock.instant();
        Instant deadline = started.plus(config.timeBudget());
        Tally tally = new Tally();
        List<SweepListing> due = dueListings(started, tally);
        for (int i = 0; i < due.size(); i++) {
            if (!clock.instant().isBefore(deadline)) {
                tally.notStarted = due.size() - i;
                tally.budgetExhausted = true;
                break;
            }
            String paymentId = due.get(i).id();
            tally.examined++;
            try {
                tally.count(reconcile(paymentId, tally, deadline));
            } catch (RuntimeException e) {
                // Nothing is known about how far it got, and nothing needs to be: every step is
                // durable or repeatable, and the payment is still due for the next sweep.
                tally.errors++;
                LOG.errorf(e, "reconcile paymentId=%s failed; left for the next sweep", paymentId);
            }
        }
        SweepSummary.Refunds refunded = refundSweep.sweep(deadline);
        outbox.sweep(deadline);
        SweepSummary summary = tally.summary(trigger, Duration.between(started, clock.instant()).toMillis(), refunded);
        backlog.emit();
        return summary; // logged, one line per sweep, by the function (RequestLog)
    }

    /**
     * The oldest due entries over all shards, at most a batch: each shard is asked for a batch
     * (one Query each) and the union is cut to the oldest {@code batchSize}, so a backlog in one
     * shard is worked off as fast as a spread one.
     */
    private List<SweepListing> dueListings(Instant now, Tally tally) {
        int batch = batch(config);
        return oldestDue(payments.sweepShards(), shard -> payments.dueForCheck(shard, now, batch), batch,
                () -> tally.errors++, "sweep");
    }

    /** At most this many due entries per sweep, of payments and of refunds each. */
    static int batch(ReconcileConfig config) {
        return Math.max(1, config.batchSize());
    }

    /**
     * The oldest due entries of every shard's {@code query} (one Query each), cut to {@code batch}; a
     * shard whose query fails is counted by {@code failed} and the others go on.
     */
    static List<SweepListing> oldestDue(int shards, IntFunction<List<SweepListing>> query, int batch,
            Runnable failed, String what) {
        List<SweepListing> due = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            try {
                due.addAll(query.apply(shard));
            } catch (RuntimeException e) {
                failed.run();
                LOG.errorf(e, "%s query of shard %d failed; the other shards go on", what, shard);
            }
        }
        due.sort(Comparator.comparing(SweepListing::nextCheckAt));
        return due.size() > batch ? due.subList(0, batch) : due;
    }

    // --- one payment --------------------------------------------------------------------------

    private Outcome reconcile(String paymentId, Tally tally, Instant deadline) {
        Optional<SweepState> read = payments.findForSweep(paymentId);
        Instant now = clock.instant();
        if (read.isEmpty() || !read.get().dueAt(now)) {
            return Outcome.SKIPPED; // the index lags: settled or re-scheduled meanwhile
        }
        Payment payment = read.get().payment();
        reached(paymentId, ReconcilePhase.READ);
        if (payment.cancelPending()) {
            return cancelDeclined(payment, deadline, now);
        }
        Verdict verdict = ask(payment, tally, deadline);
        return record(read.get(), verdict);
    }

    /**
     * A FAILED payment whose charge stays open to the customer: cancel it again. Canceled, the
     * payment leaves the sweep; lost to a success, it is in review; otherwise checked again after a
     * backoff, with no cap: only the provider's word ends a cancel pending.
     */
    private Outcome cancelDeclined(Payment payment, Instant deadline, Instant now) {
        if (!accounts.reaches(payment.providerAccount())) {
            return defer(payment, now, "charged through provider account " + payment.providerAccount()
                    + ", which this deployment does not reach; its cancel waits");
        }
        DeclinedChargeCancel.Cancel cancel = cancels.cancel(payment, Actor.SWEEP, deadline);
        return switch (cancel.outcome()) {
            case CANCELED -> {
                written(payment, PaymentStatus.FAILED, "declined charge " + payment.providerPaymentId() + " canceled");
                yield Outcome.CANCELED;
            }
            case LOST_TO_SUCCESS -> Outcome.NEEDS_REVIEW;
            case NOT_CANCELED -> defer(payment, clock.instant(), "the cancel of declined charge "
                    + payment.providerPaymentId() + " is not confirmed yet");
        };
    }

    private Outcome defer(Payment payment, Instant now, String reason) {
        Instant next = now.plus(backoff(payment.checkAttempts()));
        if (!payments.deferCheck(payment, next, null, null, now)) {
            return Outcome.SKIPPED; // another sweep got there first
        }
        reached(payment.id(), ReconcilePhase.WRITTEN);
        LOG.warnf("reconcile paymentId=%s: %s; check %d at %s", payment.id(), reason, payment.checkAttempts() + 1, next);
        return Outcome.DEFERRED;
    }

    /**
     * What the provider says about the payment; no write happens here. Provider calls end by the
     * sweep's deadline: no retry wait or {@code Retry-After} may hold the sweep past its budget.
     */
    private Verdict ask(Payment payment, Tally tally, Instant deadline) {
        if (payment.reviewBound()) {
            // Its writer died between PENDING → UNKNOWN and → NEEDS_REVIEW: finish that, never re-send.
            // (Stored with the first step; one recorded before reasons were means facts disagreed.)
            return new Review(payment.statusReason(), payment.reviewReason() != null ? payment.reviewReason()
                    : ReviewReason.CONFLICTING_FACTS);
        }
        if (!accounts.reaches(payment.providerAccount())) {
            // Another account's "no charge" says nothing about this payment, and its charge is not ours to send.
            return new NoAnswer("charged through provider account " + payment.providerAccount()
                    + ", which this deployment does not reach; not looked up elsewhere");
        }
        Optional<ProviderRefusal> refusal = provider.chargeRefusal(payment.providerAccount());
        if (refusal.isPresent()) {
            if (refusal.get() == ProviderRefusal.AT_CAPACITY) {
                metrics.count(Metrics.PROVIDER_AT_CAPACITY);
            }
            return new NoAnswer("the provider account's charges are refused (" + refusal.get().detail()
                    + "); provider not called");
        }
        List<FoundCharge> charges;
        try {
            charges = provider.chargesFor(payment, deadline);
        } catch (RuntimeException fault) {
            return new NoAnswer("lookup failed: " + describe(fault));
        }
        reached(payment.id(), ReconcilePhase.LOOKED_UP);
        Verdict verdict = judge(payment, charges);
        if (!(verdict instanceof NotFound)) {
            return verdict;
        }
        if (payment.status() == PaymentStatus.PENDING) {
            return pendingNotFound(payment);
        }
        Instant now = clock.instant();
        Instant finalAt = proof.provenAt(payment);
        if (payment.status() == PaymentStatus.FAILED) {
            // Failed by an operator's override: no charge yet; watched until "no charge" is a proof.
            return now.isBefore(finalAt) ? new NoAnswer("watched: no charge at the provider yet; proven at " + finalAt)
                    : new Unwatch("the provider has no charge for this payment and that is a proof since " + finalAt);
        }
        if (now.isBefore(proof.resendUntil(payment))) {
            return resend(payment, tally, deadline);
        }
        if (!now.isBefore(finalAt)) {
            return new Settle(PaymentStatus.FAILED, null, Payment.NOT_CHARGED,
                    "reconcile: the provider has no charge for this payment " + config.providerIdempotencyWindow()
                            + " (+" + config.windowMargin() + ") after its creation; nothing was charged");
        }
        // Too old to re-send, too young to be sure: look again when "not found" is final (a
        // charge that shows up earlier settles then, or through its webhook).
        return new NoAnswer("no charge at the provider; past the re-send horizon, final at " + finalAt, finalAt);
    }

    /**
     * The provider has no charge for a PENDING payment: its run died before answering, so its
     * client saw an error, not a 202, and may already have paid again under a new key. The sweep
     * never sends this charge. Once the run's lease has ended (no run of ours can still be
     * sending it) and its account's lookup lag has passed (a charge that did arrive would
     * show in lookups by now), "no charge" is final: FAILED, nothing charged. Before that, wait:
     * the client's own retry with the same key may still take the payment over and charge it.
     */
    private Verdict pendingNotFound(Payment payment) {
        // The account's own lag where it is longer (Stripe's search may trail by up to an hour).
        Duration lag = proof.lag(payment.providerAccount());
        Instant finalAt = proof.provenAt(payment);
        if (clock.instant().isBefore(finalAt)) {
            return new NoAnswer("no charge at the provider for a PENDING payment whose run died; never sent by the"
                    + " sweep; final at " + finalAt, finalAt);
        }
        if (payment.queuedUntil() != null) {
            return new NotCharged(payment.leaseEpoch(), "reconcile: the queued charge was not made by its horizon "
                    + payment.queuedUntil() + " and the provider has no charge " + lag + " after; nothing was charged");
        }
        return new NotCharged(payment.leaseEpoch(), "reconcile: the charge run (epoch " + payment.leaseEpoch()
                + ") died before an answer and the provider has no charge " + lag
                + " after its lease ended; nothing was charged");
    }

    /**
     * The provider has no charge for this payment: the request never arrived, or is still being
     * processed. Sending it again with the payment's provider idempotency key is what the charge
     * run would do on a retry; while the provider remembers that key it executes it at most once
     * (a charge in progress is answered with the same result or a conflict, never a second charge).
     */
    private Verdict resend(Payment payment, Tally tally, Instant deadline) {
        if (payment.status() != PaymentStatus.UNKNOWN) {
            throw new IllegalStateException("only an UNKNOWN payment's charge is re-sent, not " + payment.status());
        }
        tally.resent++;
        LOG.infof("reconcile paymentId=%s: no charge at the provider; re-sending with provider key %s", payment.id(),
                payment.providerIdempotencyKey());
        ChargeResult result = provider.charge(payment, deadline);
        reached(payment.id(), ReconcilePhase.RESENT);
        return switch (result.outcome()) {
            case SUCCEEDED -> new Settle(PaymentStatus.SUCCEEDED, result.providerPaymentId(), null,
                    "reconcile: not found at the provider; re-sent with the same provider key and captured");
            case FAILED -> new Settle(PaymentStatus.FAILED, result.providerPaymentId(), result.declineCode(),
                    "reconcile: not found at the provider; re-sent with the same provider key and declined",
                    result.cancelRequired());
            case UNKNOWN, NOT_SENT -> new NoAnswer("re-sent charge got no final answer: " + result.detail(), null,
                    result.providerPaymentId(), result.customerAction());
            case NEEDS_REVIEW -> new Review("reconcile: re-sent charge: " + result.detail(),
                    ReviewReason.PROVIDER_REJECTED_REQUEST);
        };
    }

    /** Reads the lookup: exactly one charge of ours in a final status settles; more, or a mismatch, is for a human. */
    static Verdict judge(Payment payment, List<FoundCharge> lookup) {
        List<FoundCharge> charges = lookup.stream()
                .filter(c -> c.reference() == null || c.reference().equals(payment.id())).toList();
        if (charges.isEmpty()) {
            return new NotFound();
        }
        if (charges.size() > 1) {
            return new Review("the provider holds " + charges.size() + " charges for this payment: "
                    + charges.stream().map(c -> c.id() + "=" + c.providerStatus()).collect(Collectors.joining(", ")),
                    ReviewReason.CONFLICTING_FACTS);
        }
        FoundCharge charge = charges.get(0);
        if ((charge.amount() != null && charge.amount() != payment.amount())
                || (charge.currency() != null && !charge.currency().equalsIgnoreCase(payment.currency()))) {
            return new Review("charge " + charge.id() + " of " + charge.amount() + " " + charge.currency()
                    + " contradicts the payment's " + payment.amount() + " " + payment.currency(),
                    ReviewReason.CONFLICTING_FACTS);
        }
        // The adapter's one mapping of the provider's words, shared with the charge answer.
        return switch (charge.outcome()) {
            case SUCCEEDED -> new Settle(PaymentStatus.SUCCEEDED, charge.id(), null,
                    "reconcile: provider lookup found charge " + charge.id() + " succeeded");
            case FAILED -> new Settle(PaymentStatus.FAILED, charge.id(), charge.declineCodeOrStatus(),
                    "reconcile: provider lookup found charge " + charge.id() + " " + charge.providerStatus(),
                    charge.cancelRequired());
            case UNKNOWN, NOT_SENT -> new NoAnswer("charge " + charge.id() + " is '" + charge.providerStatus()
                    + "', not final yet", null, charge.id(), charge.customerAction());
            case NEEDS_REVIEW -> new Review("charge " + charge.id() + " is '" + charge.providerStatus() + "'",
                    ReviewReason.PROVIDER_REJECTED_REQUEST);
        };
    }

    /**
     * Writes the verdict with one conditional write (two for PENDING → NEEDS_REVIEW). A lost
     * condition means someone else moved the payment: re-read and decide again with the same
     * provider facts, a few times at most.
     */
    private Outcome record(SweepState read, Verdict verdict) {
        SweepState state = read;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Payment payment = state.payment();
            Instant now = clock.instant();
            Optional<Outcome> done;
            if (verdict instanceof Settle settle) {
                done = settle(payment, settle, now);
            } else if (verdict instanceof NotCharged notCharged) {
                if (payment.status() != PaymentStatus.PENDING || payment.leaseEpoch() != notCharged.epoch()) {
                    return Outcome.SKIPPED; // taken over by the client's retry, or settled: not ours to fail
                }
                done = settle(payment, new Settle(PaymentStatus.FAILED, null, Payment.NOT_CHARGED,
                        notCharged.reason()), now);
            } else if (verdict instanceof Review review) {
                done = review(payment, review.reason(), review.why(), Outcome.NEEDS_REVIEW, now);
            } else if (verdict instanceof Unwatch unwatch) {
                done = unwatch(payment, unwatch.reason());
            } else if (verdict instanceof NoAnswer noAnswer) {
                if (round > 0 && (!state.dueAt(now)
                        || payment.checkAttempts() != read.payment().checkAttempts())) {
                    return Outcome.SKIPPED; // another sweep checked it meanwhile (deferred or settled)
                }
                done = unresolved(payment, noAnswer, now);
            } else {
                throw new IllegalStateException("unrecorded verdict " + verdict);
            }
            if (done.isPresent()) {
                return done.get();
            }
            Optional<SweepState> again = payments.findForSweep(payment.id());
            if (again.isEmpty()) {
                return Outcome.SKIPPED; // removed by its charge run (never sent, key released)
            }
            state = again.get();
        }
        LOG.warnf("reconcile paymentId=%s: still contended after %d rounds; left for the next sweep",
                read.payment().id(), MAX_ROUNDS);
        return Outcome.SKIPPED;
    }

    /** A final provider fact: settle an unsettled payment, or check it against a settled one. */
    private Optional<Outcome> settle(Payment payment, Settle settle, Instant now) {
        PaymentStatus current = payment.status();
        if (current.isUnsettled()) {
            // A declined charge left open is canceled by the next sweep (due at once).
            Transition t = settle.cancelRequired()
                    ? Transition.failedCancelPending(current, settle.providerPaymentId(), settle.declineCode(),
                            settle.reason(), now, fence(payment))
                    : new Transition(current, settle.status(), settle.providerPaymentId(), settle.declineCode(),
                            settle.reason(), null, fence(payment));
            if (!payments.apply(payment.id(), payment.tenant(), t, Actor.SWEEP, now)) {
                return Optional.empty();
            }
            written(payment, settle.status(), settle.reason());
            return Optional.of(settle.status() == PaymentStatus.SUCCEEDED ? Outcome.SUCCEEDED : Outcome.FAILED);
        }
        PaymentStatus target = current.onProviderFact(settle.status());
        if (current == PaymentStatus.FAILED && target == PaymentStatus.NEEDS_REVIEW) {
            // The sweep reads a FAILED payment when it watches an operator's override: never silently.
            LOG.warnf("reconcile paymentId=%s: a charge fact contradicts its FAILED record (%s); moving it to"
                    + " NEEDS_REVIEW", payment.id(), settle.reason());
        } else if (current == PaymentStatus.FAILED && settle.status() == PaymentStatus.FAILED) {
            return unwatch(payment, "the provider's failed charge " + settle.providerPaymentId() + " backs the failure");
        }
        if (target == current && (settle.providerPaymentId() == null || payment.providerPaymentId() == null
                || settle.providerPaymentId().equals(payment.providerPaymentId()))) {
            return Optional.of(Outcome.SKIPPED); // settled the same way by someone else (or already in review)
        }
        if (target == current) {
            return review(payment, "conflicting facts: recorded " + current + " with charge " + payment.providerPaymentId()
                    + ", the provider says " + settle.status() + " with charge " + settle.providerPaymentId(),
                    ReviewReason.CONFLICTING_FACTS, Outcome.NEEDS_REVIEW, now);
        }
        return review(payment, "conflicting facts: recorded " + current + ", the provider says " + settle.status()
                + " (" + settle.reason() + ")", ReviewReason.CONFLICTING_FACTS, Outcome.NEEDS_REVIEW, now);
    }

    /** Nothing final from the provider: defer with backoff, or dead-letter past a cap. */
    private Optional<Outcome> unresolved(Payment payment, NoAnswer noAnswer, Instant now) {
        String reason = noAnswer.reason();
        int attempt = payment.checkAttempts() + 1;
        Duration age = Duration.between(payment.createdAt(), now);
        boolean watched = payment.status() == PaymentStatus.FAILED;
        if (watched && age.compareTo(config.maxAge()) >= 0) {
            // An operator's failure stands; what the provider never said is not a conflicting fact.
            LOG.warnf("reconcile paymentId=%s: stopped watching the operator's failed resolution after %s without"
                    + " the provider's word: %s", payment.id(), age.withNanos(0), reason);
            return unwatch(payment, reason);
        }
        if (!watched && (attempt >= config.maxAttempts() || age.compareTo(config.maxAge()) >= 0)) {
            String why = "dead-lettered after " + attempt + " checks over " + age.withNanos(0) + " (caps: "
                    + config.maxAttempts() + " checks, " + config.maxAge() + "): " + reason;
            return review(payment, why, ReviewReason.RECONCILE_GAVE_UP, Outcome.DEAD_LETTERED, now);
        }
        Instant next = noAnswer.checkAgainAt() != null && noAnswer.checkAgainAt().isAfter(now) ? noAnswer.checkAgainAt()
                : now.plus(backoff(payment.checkAttempts()));
        if (watched && next.isAfter(proof.provenAt(payment)) && now.isBefore(proof.provenAt(payment))) {
            next = proof.provenAt(payment); // a charge still missing then is proven absent
        }
        // Only an UNKNOWN payment's client holds a 202 that a customer action can complete.
        CustomerAction learned = payment.status() == PaymentStatus.UNKNOWN && noAnswer.customerAction() != null
                && !noAnswer.customerAction().equals(payment.customerAction()) ? noAnswer.customerAction() : null;
        if (!payments.deferCheck(payment, next, learned == null ? null : noAnswer.providerPaymentId(), learned, now)) {
            return Optional.empty();
        }
        reached(payment.id(), ReconcilePhase.WRITTEN);
        LOG.infof("reconcile paymentId=%s deferred: check %d at %s; %s", payment.id(), attempt, next, reason);
        return Optional.of(Outcome.DEFERRED);
    }

    /** A watched FAILED payment leaves the sweep, its failure backed by the provider's word (or no longer watched). */
    private Optional<Outcome> unwatch(Payment payment, String reason) {
        if (!payments.unwatch(payment)) {
            return Optional.empty();
        }
        reached(payment.id(), ReconcilePhase.WRITTEN);
        LOG.infof("reconcile paymentId=%s FAILED no longer watched: %s", payment.id(), reason);
        return Optional.of(Outcome.SKIPPED);
    }

    /**
     * To NEEDS_REVIEW, out of the sweep. The state machine has no PENDING → NEEDS_REVIEW, so a
     * PENDING payment first becomes UNKNOWN (fenced, due at once): a sweep that dies between the
     * two writes leaves an UNKNOWN payment the next sweep finishes.
     */
    private Optional<Outcome> review(Payment payment, String reason, ReviewReason why, Outcome outcome, Instant now) {
        Payment current = payment;
        if (current.status() == PaymentStatus.NEEDS_REVIEW) {
            return Optional.of(Outcome.SKIPPED);
        }
        if (current.status() == PaymentStatus.PENDING) {
            Transition toUnknown = new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null,
                    "reconcile: " + Payment.REVIEW_BOUND + reason, now, fence(current), null, why);
            if (!payments.apply(current.id(), current.tenant(), toUnknown, Actor.SWEEP, now)) {
                return Optional.empty();
            }
            reached(current.id(), ReconcilePhase.MARKED_UNKNOWN);
            current = withStatus(current, PaymentStatus.UNKNOWN);
        }
        Transition t = Transition.toReview(current.status(), null, reason, why);
        if (!payments.apply(current.id(), current.tenant(), t, Actor.SWEEP, now)) {
            return Optional.empty();
        }
        written(current, PaymentStatus.NEEDS_REVIEW, reason);
        if (outcome == Outcome.DEAD_LETTERED) {
            LOG.warnf("reconcile paymentId=%s DEAD-LETTERED to NEEDS_REVIEW: %s", current.id(), reason);
        }
        return Optional.of(outcome);
    }

    /**
     * A PENDING payment is settled only if no charge retry has fenced it since we read it (its
     * epoch is the one we saw); an UNKNOWN one has no run left that could write it.
     */
    private static OptionalLong fence(Payment payment) {
        return payment.status() == PaymentStatus.PENDING ? OptionalLong.of(payment.leaseEpoch()) : OptionalLong.empty();
    }

    /**
     * Equal jitter: uniform in {@code [c/2, c]} with {@code c = min(cap, base·2^attempts)}. Unlike full
     * jitter it never comes back at once: a payment the provider could not settle just now is not
     * asked again within the same minute, and the spread still keeps a fleet of deferrals apart (drawn
     * from {@link Jitter}, reseeded after a SnapStart restore).
     */
    Duration backoff(int attempts) {
        return backoff(config, attempts);
    }

    /** Equal jitter: uniform in {@code [c/2, c]}, {@code c = min(cap, base·2^attempts)}. */
    static Duration backoff(ReconcileConfig config, int attempts) {
        long base = Math.max(1, config.backoffBase().toMillis());
        long cap = Math.max(base, config.backoffCap().toMillis());
        long ceiling = attempts >= 30 ? cap : Math.min(cap, base << attempts);
        return Duration.ofMillis(ceiling - Jitter.nextLong(ceiling / 2 + 1));
    }

    private void written(Payment payment, PaymentStatus to, String reason) {
        reached(payment.id(), ReconcilePhase.WRITTEN);
        LOG.infof("reconcile paymentId=%s %s -> %s: %s", payment.id(), payment.status(), to, reason);
    }

    private void reached(String paymentId, ReconcilePhase phase) {
        phases.fire(new ReconcilePhaseReached(paymentId, phase));
    }

    private static Payment withStatus(Payment p, PaymentStatus status) {
        return new Payment(p.id(), p.tenant(), status, p.amount(), p.currency(), p.reference(), p.description(),
                p.providerPaymentId(), p.declineCode(), p.statusReason(), p.createdAt(), p.updatedAt(), p.leaseEpoch(),
                p.checkAttempts(), p.providerAccount(), p.leaseExpiresAt(), null, null);
    }

    private static String describe(Throwable fault) {
        return fault.getClass().getSimpleName() + (fault.getMessage() == null ? "" : " (" + fault.getMessage() + ")");
    }

    // --- verdicts and counting ----------------------------------------------------------------

    /** What the provider said about one payment. */
    sealed interface Verdict permits Settle, Review, NoAnswer, NotFound, NotCharged, Unwatch {
    }

    /** A final fact: SUCCEEDED or FAILED ({@code cancelRequired}: declined, the charge left open). */
    record Settle(PaymentStatus status, String providerPaymentId, String declineCode, String reason,
            boolean cancelRequired) implements Verdict {
        Settle(PaymentStatus status, String providerPaymentId, String declineCode, String reason) {
            this(status, providerPaymentId, declineCode, reason, false);
        }
    }

    /** Contradicting facts, or a request the provider rejected: a human decides. */
    record Review(String reason, ReviewReason why) implements Verdict {
    }

    /**
     * Nothing final (breaker open, lookup failed, charge not final, re-send unanswered): ask again
     * later. What the provider did say is kept: the id of a charge it holds, and what the customer
     * must do for it, so a payment waiting for 3-D Secure shows the merchant's front end how to
     * finish it even when the charge run's own answer was lost.
     */
    record NoAnswer(String reason, Instant checkAgainAt, String providerPaymentId, CustomerAction customerAction)
            implements Verdict {
        NoAnswer(String reason) {
            this(reason, null);
        }

        NoAnswer(String reason, Instant checkAgainAt) {
            this(reason, checkAgainAt, null, null);
        }
    }

    /**
     * A PENDING payment the provider provably never charged: FAILED, but only while it is still
     * PENDING at the epoch this was judged for (a client's retry that took it over decides then).
     */
    record NotCharged(long epoch, String reason) implements Verdict {
    }

    /** A watched FAILED payment whose "no charge" is now a proof: it leaves the sweep as it is. */
    record Unwatch(String reason) implements Verdict {
    }

    /** The provider has no charge for the payment (resolved by the not-found rule before recording). */
    record NotFound() implements Verdict {
    }

    enum Outcome {
        SUCCEEDED, FAILED, NEEDS_REVIEW, DEFERRED, DEAD_LETTERED, SKIPPED, CANCELED
    }

    private static final class Tally {
        int examined;
        int succeeded;
        int failed;
        int needsReview;
        int deferred;
        int deadLettered;
        int skipped;
        int errors;
        int resent;
        int canceled;
        int notStarted;
        boolean budgetExhausted;

        void count(Outcome outcome) {
            switch (outcome) {
                case SUCCEEDED -> succeeded++;
                case FAILED -> failed++;
                case NEEDS_REVIEW -> needsReview++;
                case DEFERRED -> deferred++;
                case DEAD_LETTERED -> deadLettered++;
                case SKIPPED -> skipped++;
                case CANCELED -> canceled++;
            }
        }

        SweepSummary summary(String trigger, long elapsedMillis, SweepSummary.Refunds refunds) {
            return new SweepSummary(trigger, examined, new SweepSummary.Settled(succeeded, failed, needsReview),
                    deferred, deadLettered, skipped, errors, resent, canceled, notStarted, budgetExhausted, elapsedMillis,
                    refunds);
        }
    }
}
