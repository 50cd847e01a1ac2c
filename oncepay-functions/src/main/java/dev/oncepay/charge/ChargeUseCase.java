package dev.oncepay.charge;

import dev.oncepay.cancel.DeclinedChargeCancel;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.validation.FieldError;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.idempotency.ClaimAttempt;
import dev.oncepay.idempotency.ClaimAttempt.ExistingKey;
import dev.oncepay.idempotency.ClaimAttempt.KeyClaim;
import dev.oncepay.idempotency.FingerprintMismatchException;
import dev.oncepay.idempotency.IdempotencyStore;
import dev.oncepay.idempotency.KeyRecord;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.payment.Actor;
import dev.oncepay.order.OrderGuard;
import dev.oncepay.order.OrderRefusedException;
import dev.oncepay.payment.Order;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.RefundRepository;
import dev.oncepay.payment.RefundRepository.RefundRecord;
import dev.oncepay.payment.ReviewReason;
import dev.oncepay.provider.NoChargeProof;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.queue.ChargeJob;
import dev.oncepay.queue.ChargeQueue;
import dev.oncepay.queue.QueueUnavailableException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Takes a payment exactly once per idempotency key.
 *
 * <p>A first request costs three single-item conditional writes: claim the key, record the
 * PENDING payment, settle the payment (fenced by the lease epoch). The key needs no completion
 * write of its own: it is done when its payment has an outcome. A run that dies between any two
 * steps leaves a key with a lease; once that expires, one retry takes it over (epoch + 1), fences
 * the payment and resumes, calling the provider again with the same provider idempotency key,
 * which cannot charge twice. A PENDING payment left behind is also in the sweep index.
 *
 * <p>For a tenant that guards its orders (design rule 16), one more write binds the order to the
 * payment after it is recorded and before it is sent: an order bound to a paid or live payment
 * refuses a payment under any other key (see {@link OrderGuard#bind}).
 *
 * <p>A queued charge ({@code Prefer: respond-async}) ends its request after the order is bound: one
 * message on its account's queue, and 202. The charge worker's run ({@link #runQueued}) takes the
 * key over and goes on with the same phases and the same code as a request's run.
 */
@ApplicationScoped
public class ChargeUseCase {
    private static final Logger LOG = Logger.getLogger(ChargeUseCase.class);
    /** Re-reads after a lost settle before leaving the payment to the client's retry. */
    private static final int LOST_SETTLE_ROUNDS = 3;

    private final IdempotencyStore keys;
    private final PaymentRepository payments;
    private final ProviderGateway provider;
    private final Event<ChargePhaseReached> phases;
    private final Clock clock;
    private final OncepayConfig config;
    private final ProviderAccounts accounts;
    private final DeclinedChargeCancel cancels;
    private final OrderGuard guard;
    private final RefundRepository refunds;
    private final ChargeQueue queue;
    private final NoChargeProof proof;

    public ChargeUseCase(IdempotencyStore keys, PaymentRepository payments, ProviderGateway provider,
            Event<ChargePhaseReached> phases, Clock clock, OncepayConfig config, ProviderAccounts accounts,
            DeclinedChargeCancel cancels, OrderGuard guard, RefundRepository refunds, ChargeQueue queue,
            NoChargeProof proof) {
        this.proof = proof;
        this.refunds = refunds;
        this.queue = queue;
        this.cancels = cancels;
        this.guard = guard;
        this.keys = keys;
        this.payments = payments;
        this.provider = provider;
        this.phases = phases;
        this.clock = clock;
        this.config = config;
        this.accounts = accounts;
    }

    /**
     * @throws InvalidRequestException the instrument does not suit the tenant's provider; nothing is stored
     */
    public ChargeAnswer charge(ChargeCommand command) {
        ProviderAccount account = accounts.forTenant(command.key().tenant());
        List<FieldError> unsuitable = provider.check(account, command.request().instrument());
        if (!unsuitable.isEmpty()) {
            throw new InvalidRequestException(unsuitable);
        }
        Instant now = clock.instant();
        // Queued where the client or its tenant prefers it and the account has a queue; else charged here.
        boolean queued = (command.respondAsync() || config.queue().respondAsyncFor(command.key().tenant()))
                && queue.reaches(account);
        // A queued charge is never refused for the provider's state: its queue holds it until the account takes it.
        Optional<ProviderRefusal> refusal = queued ? Optional.empty() : provider.chargeRefusal(account);
        if (refusal.isPresent()) {
            // Fail fast before any write, so the key stays free; but a key that exists is still
            // answered (replay, 409, 422): those never need the provider.
            KeyRecord stored = keys.find(command.key().storageId(), now)
                    .orElseThrow(() -> provider.refusedBeforeCall(refusal.get()));
            return existing(stored, command);
        }
        KeyRecord proposed = new KeyRecord(command.key().storageId(), command.key().tenant(), command.fingerprint(),
                Payment.newId(), UUID.randomUUID().toString(), 1, now.plus(lease()),
                now.plus(config.idempotency().retention()), now);
        ClaimAttempt attempt = keys.claim(proposed, now);
        if (attempt instanceof KeyClaim claim) {
            return queued ? enqueue(claim, command.request()) : run(claim, command.request(), Optional.empty(), false);
        }
        return existing(((ExistingKey) attempt).record(), command);
    }

    /**
     * The charge worker's run of a queued payment, from the key's holder at {@code job}'s epoch (whose
     * run handed the charge over and does nothing more) or from any run whose lease has ended; the
     * same phases as a request's run, the same provider call.
     *
     * @return the payment as the run left it, with the run's epoch: PENDING if nothing was sent (the
     *         account's breaker, retry budget or bulkhead refused) or the store failed, for the worker
     *         to put it back; empty if another run holds the key and its lease lives
     * @throws RequestInFlightException a newer run fenced the payment first
     * @throws OrderRefusedException another payment holds the order; the payment is left to the sweep
     */
    public Optional<QueuedRun> runQueued(ChargeJob job, Payment payment) {
        Instant now = clock.instant();
        Optional<KeyRecord> key = keys.find(job.keyId(), now).filter(k -> k.resourceId().equals(payment.id()));
        if (key.isEmpty()) {
            // Kept longer than any payment stays queued: only a key past its retention is gone.
            throw new IllegalStateException("payment " + payment.id() + " is queued, but its key is gone");
        }
        KeyRecord held = key.get();
        String owner = UUID.randomUUID().toString();
        Optional<KeyClaim> claim;
        if (held.leaseEpoch() == job.epoch()) {
            claim = keys.takeOverQueued(held, owner, now.plus(lease()));
        } else if (held.leaseExpiredAt(now)) {
            claim = keys.takeOver(held, owner, now, now.plus(lease()));
        } else {
            return Optional.empty();
        }
        if (claim.isEmpty()) {
            return Optional.empty(); // another copy of this message, or a retry, took it first
        }
        LOG.infof("charge worker took over paymentId=%s at epoch=%d (queued at epoch %d, attempt %d)", payment.id(),
                claim.get().record().leaseEpoch(), job.epoch(), job.attempt());
        ChargeRequest request = new ChargeRequest(payment.amount(), payment.currency(), payment.reference(),
                payment.description(), payment.instrument());
        return Optional.of(new QueuedRun(run(claim.get(), request, Optional.of(payment), true).payment(),
                claim.get().record().leaseEpoch()));
    }

    /** How a charge worker's run left a queued payment, and the epoch it ran at. */
    public record QueuedRun(Payment payment, long epoch) {
    }

    /** A payment and every refund of it, oldest first. */
    public record RefundedPayment(Payment payment, List<RefundRecord> refunds) {
    }

    /**
     * A payment of this tenant with its refunds: one read of its item, and one batch read of its
     * refunds only when it has any. Another tenant's payment is as absent as a missing one.
     */
    public Optional<RefundedPayment> payment(String tenant, String paymentId) {
        return refunds.findPayment(paymentId).filter(p -> p.payment().tenant().equals(tenant))
                .map(p -> new RefundedPayment(p.payment(), refunds.findAll(p.reservations().refundIds())));
    }

    /**
     * The order {@code payment} is for, as its tenant guards it: empty for a tenant without the
     * guard; an empty inner value for an order no payment ever bound.
     */
    public Optional<Optional<Order>> orderOf(Payment payment) {
        return guard.orderOf(payment);
    }

    private ChargeAnswer existing(KeyRecord stored, ChargeCommand command) {
        if (!stored.fingerprint().equals(command.fingerprint())) {
            throw new FingerprintMismatchException();
        }
        Optional<Payment> payment = payments.find(stored.resourceId());
        if (payment.isPresent() && payment.get().status() != PaymentStatus.PENDING) {
            return new ChargeAnswer(payment.get(), true);
        }
        Instant now = clock.instant();
        if (payment.isPresent() && payment.get().queuedAt(now)) {
            return queuedAgain(stored, payment.get(), now);
        }
        if (!stored.leaseExpiredAt(now)) {
            throw inFlight();
        }
        ProviderAccount account = payment.map(Payment::providerAccount)
                .orElseGet(() -> accounts.forTenant(stored.tenant()));
        Optional<ProviderRefusal> refusal = provider.chargeRefusal(account);
        if (refusal.isPresent()) {
            if (payment.isPresent()) {
                // An earlier run recorded it and may have sent the charge: "nothing was charged"
                // would be a guess. The payment as stored, its key left bound to it, the sweep on it.
                LOG.infof("paymentId=%s left as stored: its takeover is refused (%s)", stored.resourceId(),
                        refusal.get().detail());
                return new ChargeAnswer(payment.get(), false);
            }
            throw provider.refusedBeforeCall(refusal.get()); // no run recorded a payment, so none sent a charge
        }
        KeyClaim claim;
        try {
            claim = keys.takeOver(stored, UUID.randomUUID().toString(), now, now.plus(lease()))
                    .orElseThrow(this::inFlight);
        } catch (SdkException storeFailed) {
            if (payment.isPresent()) {
                return storeFailedOnTakeover(payment.get(), storeFailed);
            }
            throw storeFailed;
        }
        LOG.infof("took over paymentId=%s at epoch=%d", stored.resourceId(), claim.record().leaseEpoch());
        return run(claim, command.request(), payment, false);
    }

    /**
     * A same-key retry of a payment whose charge is the worker's: answered as queued. Once the run
     * that queued it (or a worker's run since) has ended, its message may never have been sent (it
     * died first): send one more, from that run's epoch. A second message is harmless: the worker
     * charges a payment once, however many of its messages arrive.
     */
    private ChargeAnswer queuedAgain(KeyRecord stored, Payment payment, Instant now) {
        if (stored.leaseExpiredAt(now)) {
            try {
                queue.send(payment.providerAccount(), ChargeJob.first(payment.id(), stored.storageId(),
                        stored.leaseEpoch(), payment.createdAt()), Duration.ZERO);
            } catch (QueueUnavailableException failed) {
                LOG.warnf("paymentId=%s not queued again: %s; its messages or the sweep finish it", payment.id(),
                        failed.getMessage());
            }
        }
        return new ChargeAnswer(payment, true, true);
    }

    /**
     * A queued charge's request: claim the key (done), record the PENDING payment with its horizon,
     * bind its order, put the charge on its account's queue, answer 202. Nothing here calls the
     * provider, so no breaker or bulkhead refuses it: the queue holds what the account cannot take yet.
     * If the queue refuses the message, the payment is forgotten unless a worker already fenced it
     * (the send arrived, its answer was lost): a 503 only when no worker can ever charge it.
     */
    private ChargeAnswer enqueue(KeyClaim claim, ChargeRequest request) {
        KeyRecord key = claim.record();
        long epoch = key.leaseEpoch();
        reached(key.resourceId(), ChargePhase.KEY_CLAIMED, epoch);
        Instant now = clock.instant();
        Payment payment = pending(key, request, now, now.plus(config.queue().horizon()));
        try {
            payments.createPending(payment, sweepAt(payment, now));
        } catch (SdkException storeFailed) {
            releaseQuietly(key); // nothing was queued: free the key for the 503's retry
            throw storeFailed;
        }
        reached(payment.id(), ChargePhase.PAYMENT_RECORDED, epoch);
        Optional<ChargeAnswer> unbound = bindOrder(claim, payment);
        if (unbound.isPresent()) {
            return unbound.get();
        }
        reached(payment.id(), ChargePhase.ORDER_BOUND, epoch);
        try {
            queue.send(payment.providerAccount(), ChargeJob.first(payment.id(), key.storageId(), epoch, now),
                    Duration.ZERO);
        } catch (QueueUnavailableException failed) {
            if (forgetQueued(payment, key)) {
                throw failed;
            }
            LOG.warnf("paymentId=%s: the queue's answer was lost and the payment is not ours to forget; answering"
                    + " it as it stands", payment.id());
            return new ChargeAnswer(findQuietly(payment), false, true);
        }
        reached(payment.id(), ChargePhase.QUEUED, epoch);
        return new ChargeAnswer(payment, false, true);
    }

    /**
     * Binds {@code payment}'s order before it may be sent. On a refusal (or a store failure) a fresh
     * claim forgets the payment and throws; a takeover's store failure is answered with the payment
     * as stored (an earlier run may have sent it), which is what the returned answer holds.
     */
    private Optional<ChargeAnswer> bindOrder(KeyClaim claim, Payment payment) {
        KeyRecord key = claim.record();
        try {
            guard.bind(payment);
            return Optional.empty();
        } catch (OrderRefusedException | RequestInFlightException refused) {
            // Refused (or, rarely, out-raced by rebinds every round: 409 in flight for a retry later).
            String left;
            if (!claim.takenOver()) {
                // Never sent, and now never will be: nothing stays under this key that could charge.
                forgetUnsent(payment, key, false);
                left = "the payment deleted and the key released";
            } else if (refused instanceof OrderRefusedException) {
                // A takeover leaves its payment to the sweep: the dead run's guard may have been off.
                left = endRefusedRun(payment, key);
            } else {
                left = "the payment left to the sweep";
            }
            LOG.infof("order refused paymentId=%s: %s; nothing sent, %s", payment.id(),
                    refused instanceof OrderRefusedException order
                            ? order.getClass().getSimpleName() + " holder=" + order.boundPaymentId()
                            : "rebound by other payments every round", left);
            throw refused;
        } catch (SdkException storeFailed) {
            if (claim.takenOver()) {
                return Optional.of(storeFailedOnTakeover(payment, storeFailed));
            }
            forgetUnsent(payment, key, true); // the bind may have committed before its answer was lost
            throw storeFailed;
        }
    }

    /**
     * A takeover its order refused sends nothing, and no earlier run can still be sending (their
     * leases ended, or they handed the charge to the queue). So its lease ends now, and a queue
     * horizon with it: a refused queued payment is proven uncharged one lookup lag from now, not
     * after its queue's hour, and no worker run tries it again. A store failure leaves it as fenced.
     */
    private String endRefusedRun(Payment payment, KeyRecord key) {
        Instant now = clock.instant();
        Instant provenAt = proof.provenAfter(now, payment.providerAccount());
        try {
            if (payments.endUnsentRun(payment, key.leaseEpoch(), now, provenAt)) {
                return "the sweep proves it uncharged from " + provenAt;
            }
            return "the payment left to a newer run or the sweep";
        } catch (SdkException storeFailed) {
            LOG.warnf("store failed ending the refused run of paymentId=%s: %s", payment.id(), storeFailed.getMessage());
            return "the payment left to the sweep after its lease" + (payment.queuedAt(now) ? " and queue horizon" : "");
        }
    }

    /**
     * @param queuedJob the charge worker's run: a charge that provably was not sent leaves the
     *        payment PENDING for the worker to put back on its queue, instead of UNKNOWN
     */
    private ChargeAnswer run(KeyClaim claim, ChargeRequest request, Optional<Payment> seen, boolean queuedJob) {
        KeyRecord key = claim.record();
        long epoch = key.leaseEpoch();
        reached(key.resourceId(), ChargePhase.KEY_CLAIMED, epoch);

        Payment payment;
        try {
            payment = record(key, request, seen);
        } catch (SdkException storeFailed) {
            if (seen.isPresent()) {
                return storeFailedOnTakeover(seen.get(), storeFailed);
            }
            if (!claim.takenOver()) {
                // A fresh claim has sent nothing: free the key, so the 503's "retry with the same
                // key" works at once instead of meeting our lease (409) until it ends.
                releaseQuietly(key);
            }
            throw storeFailed;
        }
        if (payment.status() != PaymentStatus.PENDING) {
            // Settled (by a webhook or the sweep) between our read and our fence. A request that
            // holds the key gets its own answer; only one that found an outcome stored is a replay.
            return new ChargeAnswer(payment, false);
        }
        reached(payment.id(), ChargePhase.PAYMENT_RECORDED, epoch);
        Optional<ChargeAnswer> unbound = bindOrder(claim, payment);
        if (unbound.isPresent()) {
            return unbound.get();
        }
        reached(payment.id(), ChargePhase.ORDER_BOUND, epoch);

        // A payment taken over from a run of another provider account is charged there, if at all:
        // never send it to ours (the sweep defers it too), its outcome is unknown here.
        ChargeResult result = accounts.reaches(payment.providerAccount()) ? provider.charge(payment)
                : ChargeResult.unknown("charged through provider account " + payment.providerAccount()
                        + ", which this deployment does not reach");
        reached(payment.id(), ChargePhase.PROVIDER_ANSWERED, epoch);

        if (result.outcome() == ProviderOutcome.NOT_SENT && queuedJob) {
            LOG.infof("paymentId=%s not sent by the charge worker: %s", payment.id(), result.detail());
            return new ChargeAnswer(payment, false, true);
        }
        if (result.outcome() == ProviderOutcome.NOT_SENT && !claim.takenOver()) {
            // Provably nothing reached the provider in the only run there was: forget it all.
            // (A takeover cannot know what the dead run sent, so it records UNKNOWN instead.)
            forgetUnsent(payment, key, true);
            throw provider.nothingSent(result.refusal(), result.detail());
        }
        Transition transition = settlement(result, epoch);
        Instant now = clock.instant();
        try {
            if (!payments.apply(payment.id(), payment.tenant(), transition, Actor.chargeRun(epoch), now)) {
                return afterLostSettle(payment.id(), result, epoch);
            }
        } catch (SdkException storeFailed) {
            return storeFailedAfterCall(payment, result, storeFailed);
        }
        reached(payment.id(), ChargePhase.SETTLED, epoch);
        Payment settled = settled(payment, transition, now);
        if (settled.cancelPending()) {
            // Declined, but the charge stays payable with its client secret: cancel it now, so the
            // 402 stays true (or say it is not: the charge succeeded first, the payment is in review).
            return new ChargeAnswer(cancels.cancel(settled, Actor.chargeRun(epoch),
                    clock.instant().plus(config.provider().lookupCall().budget())).payment(), false);
        }
        return new ChargeAnswer(result.outcome() == ProviderOutcome.NEEDS_REVIEW ? toReview(settled, result, epoch) : settled,
                false);
    }

    /**
     * Second step of a provider answer that needs a human: UNKNOWN (on the way to review) →
     * NEEDS_REVIEW. A failure here leaves it to the sweep, which finishes review-bound payments.
     */
    private Payment toReview(Payment unknown, ChargeResult result, long epoch) {
        Transition review = Transition.toReview(PaymentStatus.UNKNOWN, result.providerPaymentId(),
                "charge run: " + result.detail(), ReviewReason.PROVIDER_REJECTED_REQUEST);
        Instant now = clock.instant();
        try {
            if (payments.apply(unknown.id(), unknown.tenant(), review, Actor.chargeRun(epoch), now)) {
                LOG.warnf("payment %s moved to NEEDS_REVIEW: %s", unknown.id(), result.detail());
                return settled(unknown, review, now);
            }
            // Lost: a webhook, the sweep or an SDK retry of this very write moved it first.
            return payments.find(unknown.id()).orElse(unknown);
        } catch (SdkException storeFailed) {
            // The charge may have been sent: the payment as this run left it (UNKNOWN, 202), never a 503.
            LOG.warnf("store failed moving paymentId=%s to review: %s; the sweep finishes it", unknown.id(),
                    storeFailed.getMessage());
            return unknown;
        }
    }

    /**
     * A takeover of a payment an earlier run recorded, and so may have charged, whose lease or
     * fence the store failed to write: the payment as this request read it, PENDING and in the sweep index, never a
     * 503 that says nothing was charged.
     */
    private ChargeAnswer storeFailedOnTakeover(Payment seen, SdkException storeFailed) {
        LOG.warnf("store failed taking over paymentId=%s: %s; answering it as stored", seen.id(),
                storeFailed.getMessage());
        return new ChargeAnswer(seen, false);
    }

    /**
     * The provider was called, but the store cannot say how the settle ended. What is known: the
     * payment exists, PENDING, in the sweep index, which asks the provider and settles it. An
     * error here would invite the client to pay again under a new key: answer pending (202).
     */
    private ChargeAnswer storeFailedAfterCall(Payment payment, ChargeResult result, SdkException storeFailed) {
        LOG.warnf("store failed settling paymentId=%s outcome=%s: %s; answering pending", payment.id(),
                result.outcome(), storeFailed.getMessage());
        return new ChargeAnswer(payment, false);
    }

    /** The payment as stored, or as this run knows it if the store cannot say. */
    private Payment findQuietly(Payment known) {
        try {
            return payments.find(known.id()).orElse(known);
        } catch (SdkException storeFailed) {
            return known;
        }
    }

    private void releaseQuietly(KeyRecord key) {
        try {
            keys.release(key);
        } catch (SdkException stillFailing) {
            LOG.warnf("store failed releasing key of paymentId=%s: %s; its lease ends it", key.resourceId(),
                    stillFailing.getMessage());
        }
    }

    /**
     * Frees the order of the unsent payment, deletes the payment and releases the key. A payment
     * already gone was deleted by us (an SDK retry of our committed delete: nothing else deletes
     * payments). A store failure leaves them, the payment PENDING and swept; the client's retry
     * with the same key takes over later. An order left naming a deleted payment is free to the
     * next payment ({@link OrderGuard#bind}).
     *
     * @return whether the payment is gone
     */
    private boolean forgetUnsent(Payment payment, KeyRecord key, boolean orderBound) {
        if (orderBound) {
            try {
                guard.unbind(payment); // first, so no crash leaves the order naming a payment that is gone
            } catch (SdkException storeFailed) {
                LOG.warnf("store failed forgetting unsent paymentId=%s: %s", payment.id(), storeFailed.getMessage());
                return false;
            }
        }
        return deleteThenRelease(payment, key, () -> { });
    }

    /**
     * Forgets a queued payment whose message may have reached a worker after all: deleted first, at
     * our epoch, and its order freed only then. A worker that took the message has fenced the
     * payment before it could send it, so the delete fails and the order stays bound to a payment
     * that may be charged.
     *
     * @return whether the payment is gone, so that nothing can charge it any more
     */
    private boolean forgetQueued(Payment payment, KeyRecord key) {
        return deleteThenRelease(payment, key, () -> guard.unbind(payment));
    }

    private boolean deleteThenRelease(Payment payment, KeyRecord key, Runnable thenFreeOrder) {
        try {
            if (!payments.deleteUnsent(payment.id(), key.leaseEpoch()) && payments.find(payment.id()).isPresent()) {
                LOG.infof("unsent paymentId=%s not forgotten: a newer run fences it", payment.id());
                return false;
            }
        } catch (SdkException storeFailed) {
            LOG.warnf("store failed forgetting unsent paymentId=%s: %s", payment.id(), storeFailed.getMessage());
            return false;
        }
        try {
            thenFreeOrder.run();
            keys.release(key);
        } catch (SdkException storeFailed) {
            // An order or a key naming a deleted payment is free to the next request (OrderGuard#bind, the lease).
            LOG.warnf("store failed freeing the order or key of deleted paymentId=%s: %s", payment.id(),
                    storeFailed.getMessage());
        }
        return true;
    }

    /**
     * The fenced settle lost: a webhook or the sweep settled the payment first, a newer run fenced
     * it, or the SDK retried our own committed write. This run's provider answer is a fact like any
     * other and goes through the state machine ({@link PaymentStatus#onProviderFact}): agreeing, the
     * payment as it stands is the answer; contradicting (another outcome, another charge), the
     * payment goes to NEEDS_REVIEW with both facts in its reason. On a payment still unsettled
     * the fact is written unfenced, as a webhook's is: the provider answers a newer run's call with
     * the same key the same way. Whatever happens, it is this request's own answer, not a replay.
     */
    private ChargeAnswer afterLostSettle(String paymentId, ChargeResult result, long epoch) {
        for (int round = 0; round < LOST_SETTLE_ROUNDS; round++) {
            Payment current = payments.find(paymentId).orElseThrow(this::inFlight);
            Optional<Transition> move = ownFact(current, result, epoch);
            if (move.isEmpty()) {
                if (current.status() == PaymentStatus.PENDING) {
                    throw inFlight(); // a newer run holds the fence, and this run learnt nothing final
                }
                return new ChargeAnswer(current, false);
            }
            if (payments.apply(paymentId, current.tenant(), move.get(), Actor.chargeRun(epoch), clock.instant())) {
                if (move.get().to() == PaymentStatus.NEEDS_REVIEW) {
                    LOG.warnf("payment %s moved to NEEDS_REVIEW: %s", paymentId, move.get().reason());
                }
                return new ChargeAnswer(payments.find(paymentId).orElseThrow(this::inFlight), false);
            }
        }
        throw inFlight(); // still moving under us: the client's retry reads where it ended
    }

    /** The write this run's provider answer makes on {@code current}; empty if it changes nothing. */
    private static Optional<Transition> ownFact(Payment current, ChargeResult result, long epoch) {
        if (result.outcome() != ProviderOutcome.SUCCEEDED && result.outcome() != ProviderOutcome.FAILED) {
            return Optional.empty(); // no answer is no fact
        }
        PaymentStatus fact = result.outcome() == ProviderOutcome.SUCCEEDED ? PaymentStatus.SUCCEEDED
                : PaymentStatus.FAILED;
        String source = "charge run epoch " + epoch;
        PaymentStatus status = current.status();
        if (status.isUnsettled() && !current.reviewBound()) {
            return Optional.of(new Transition(status, fact, result.providerPaymentId(),
                    fact == PaymentStatus.FAILED ? result.declineCode() : null,
                    source + ", written unfenced after its fenced settle lost", null, OptionalLong.empty()));
        }
        boolean otherCharge = result.providerPaymentId() != null && current.providerPaymentId() != null
                && !result.providerPaymentId().equals(current.providerPaymentId());
        // (An UNKNOWN payment on its way to review never agrees: the fact would move it, not finish the review.)
        if (status.onProviderFact(fact) == status && (!otherCharge || status == PaymentStatus.NEEDS_REVIEW)) {
            return Optional.empty();
        }
        String reason = source + ": the provider answered " + fact + " with charge " + result.providerPaymentId()
                + ", but the payment is " + status + " with charge " + current.providerPaymentId() + " ("
                + current.statusReason() + ")";
        return Optional.of(Transition.toReview(status, null, reason, ReviewReason.CONFLICTING_FACTS));
    }

    /**
     * Phase 2: the PENDING payment, created by this run or by an earlier one that died; or, if it
     * was settled meanwhile (by a zombie run or reconcile), the settled payment.
     */
    private Payment record(KeyRecord key, ChargeRequest request, Optional<Payment> seen) {
        Instant now = clock.instant();
        Payment pending = pending(key, request, now, null);
        Instant sweepAt = sweepAt(seen.orElse(pending), now);
        if (seen.isEmpty() && payments.createPending(pending, sweepAt)) {
            return pending;
        }
        // An earlier run recorded it: fence it so that run can no longer settle it.
        boolean fenced = payments.fence(key.resourceId(), key.leaseEpoch(), key.leaseExpiresAt(), sweepAt);
        Payment existing = payments.find(key.resourceId()).orElseThrow(this::inFlight);
        if (fenced) {
            return existing;
        }
        if (existing.status() == PaymentStatus.PENDING) {
            throw inFlight(); // a newer run holds the fence
        }
        return existing;
    }

    private Payment pending(KeyRecord key, ChargeRequest request, Instant now, Instant queuedUntil) {
        return new Payment(key.resourceId(), key.tenant(), PaymentStatus.PENDING, request.amount(),
                request.currency(), request.reference(), request.description(), null, null, null, now, now,
                key.leaseEpoch(), 0, accounts.forTenant(key.tenant()), key.leaseExpiresAt(), request.instrument(),
                null, null, false, queuedUntil);
    }

    /**
     * When the sweep first looks at a PENDING payment: once the lease that covers it has surely
     * ended, and for a queued one not before its horizon (and a last worker run's lease) has passed:
     * until then its queue retries it, and the sweep would only ask the provider about a charge
     * that is meant to wait.
     */
    private Instant sweepAt(Payment payment, Instant now) {
        Instant afterLease = now.plus(payments.firstSweepDelay());
        if (payment.queuedUntil() == null) {
            return afterLease;
        }
        Instant afterQueue = payment.queuedUntil().plus(lease());
        return afterQueue.isAfter(afterLease) ? afterQueue : afterLease;
    }

    private Transition settlement(ChargeResult result, long epoch) {
        Instant now = clock.instant();
        OptionalLong fence = OptionalLong.of(epoch);
        return switch (result.outcome()) {
            case SUCCEEDED -> new Transition(PaymentStatus.PENDING, PaymentStatus.SUCCEEDED, result.providerPaymentId(),
                    null, null, null, fence);
            case FAILED -> result.cancelRequired()
                    ? Transition.failedCancelPending(PaymentStatus.PENDING, result.providerPaymentId(),
                            result.declineCode(), "declined; the charge stays open until canceled",
                            now.plus(config.sweep().firstCheckDelay()), fence)
                    : new Transition(PaymentStatus.PENDING, PaymentStatus.FAILED, result.providerPaymentId(),
                            result.declineCode(), "declined", null, fence);
            // A charge the provider holds but has not finished keeps its id, so lookups ask for it by id,
            // and what the customer must do, for the front end.
            case UNKNOWN, NOT_SENT -> new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN,
                    result.providerPaymentId(), null, result.detail(), now.plus(config.sweep().firstCheckDelay()), fence,
                    result.customerAction());
            // The state machine has no PENDING -> NEEDS_REVIEW: UNKNOWN on the way to review, due at once.
            case NEEDS_REVIEW -> new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, result.providerPaymentId(),
                    null, Payment.REVIEW_BOUND + result.detail(), now, fence, null, ReviewReason.PROVIDER_REJECTED_REQUEST);
        };
    }

    private static Payment settled(Payment p, Transition t, Instant now) {
        return new Payment(p.id(), p.tenant(), t.to(), p.amount(), p.currency(), p.reference(), p.description(),
                t.providerPaymentId(), t.declineCode(), t.reason(), p.createdAt(), now, t.fenceEpoch().orElse(0),
                p.checkAttempts(), p.providerAccount(), p.leaseExpiresAt(), p.instrument(), t.customerAction(),
                t.reviewReason(), t.cancelPending());
    }

    private void reached(String paymentId, ChargePhase phase, long epoch) {
        phases.fire(new ChargePhaseReached(paymentId, phase, epoch));
    }

    private Duration lease() {
        return config.idempotency().lease();
    }

    private RequestInFlightException inFlight() {
        return new RequestInFlightException(config.charge().inFlightRetryAfter());
    }
}
