package dev.oncepay.refund;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.idempotency.ClaimAttempt;
import dev.oncepay.idempotency.ClaimAttempt.ExistingKey;
import dev.oncepay.idempotency.ClaimAttempt.KeyClaim;
import dev.oncepay.idempotency.FingerprintMismatchException;
import dev.oncepay.idempotency.IdempotencyStore;
import dev.oncepay.idempotency.KeyRecord;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.Refund;
import dev.oncepay.payment.RefundRepository;
import dev.oncepay.payment.RefundRepository.RefundRecord;
import dev.oncepay.payment.RefundRepository.RefundablePayment;
import dev.oncepay.payment.RefundRepository.Reserved;
import dev.oncepay.payment.RefundStatus;
import dev.oncepay.payment.RefundTransition;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.provider.spi.RefundResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalLong;
import java.util.UUID;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Refunds a payment exactly once per idempotency key, and never more than it captured.
 *
 * <p>A first request costs four single-item conditional writes: claim the key, record the PENDING
 * refund (listed for the sweep), reserve its amount on the payment, settle the refund (fenced by
 * the lease epoch). The reservation is the guarantee: one conditional UpdateItem on the payment's
 * item that holds only while the sum of reservations stays at or below the captured amount, so
 * concurrent refunds beyond it are refused before any provider call. It is released only when the
 * provider proves the refund did not happen, or it was never sent.
 *
 * <p>A run that dies between two steps leaves a key with a lease; once it expires, one retry takes
 * it over (epoch + 1), fences the refund and resumes, sending again with the refund's own provider
 * idempotency key, which cannot refund twice. A refund left PENDING is in the sweep index.
 */
@ApplicationScoped
public class RefundUseCase {
    private static final Logger LOG = Logger.getLogger(RefundUseCase.class);

    private final IdempotencyStore keys;
    private final RefundRepository refunds;
    private final RefundSettlement settlement;
    private final ProviderGateway provider;
    private final ProviderAccounts accounts;
    private final Event<RefundPhaseReached> phases;
    private final Clock clock;
    private final OncepayConfig config;

    public RefundUseCase(IdempotencyStore keys, RefundRepository refunds, RefundSettlement settlement,
            ProviderGateway provider, ProviderAccounts accounts, Event<RefundPhaseReached> phases, Clock clock,
            OncepayConfig config) {
        this.keys = keys;
        this.refunds = refunds;
        this.settlement = settlement;
        this.provider = provider;
        this.accounts = accounts;
        this.phases = phases;
        this.clock = clock;
        this.config = config;
    }

    /**
     * @throws PaymentNotFoundException no payment of the tenant has the id; nothing stored
     * @throws RefundRefusedException nothing can be refunded, or not that much; nothing stored, nothing sent
     */
    public RefundAnswer refund(RefundCommand command) {
        RefundablePayment read = refunds.findPayment(command.paymentId())
                .filter(p -> p.payment().tenant().equals(command.key().tenant()))
                .orElseThrow(() -> new PaymentNotFoundException(command.paymentId()));
        Payment payment = read.payment();
        Instant now = clock.instant();
        Optional<ProviderRefusal> refusal = provider.refundRefusal(payment.providerAccount());
        if (refusal.isPresent()) {
            // Fail fast before any write; a key that exists is still answered.
            KeyRecord stored = keys.find(command.key().storageId(), now).orElseThrow(() -> provider.refusedBeforeCall(refusal.get()));
            return existing(stored, command, read);
        }
        Optional<RefundRefusedException> unrefundable = refusal(read, command.request());
        if (unrefundable.isPresent()) {
            // Refused on what was read, with no write; a replay of an earlier refund is still a replay.
            KeyRecord stored = keys.find(command.key().storageId(), now).orElseThrow(unrefundable::get);
            return existing(stored, command, read);
        }
        KeyRecord proposed = new KeyRecord(command.key().storageId(), command.key().tenant(), command.fingerprint(),
                Refund.newId(), UUID.randomUUID().toString(), 1, now.plus(config.idempotency().lease()),
                now.plus(config.idempotency().retention()), now);
        ClaimAttempt attempt = keys.claim(proposed, now);
        if (attempt instanceof KeyClaim claim) {
            return run(claim, command, read, Optional.empty());
        }
        return existing(((ExistingKey) attempt).record(), command, read);
    }

    /** A refund of the tenant's payment; another tenant's, or another payment's, is as absent as a missing one. */
    public Optional<RefundRecord> refund(String tenant, String paymentId, String refundId) {
        return refunds.findRecord(refundId)
                .filter(r -> r.refund().tenant().equals(tenant) && r.refund().paymentId().equals(paymentId));
    }

    /** The refunds {@code refundIds} names (a payment's, as its item lists them), oldest first; no read for none. */
    public List<RefundRecord> refunds(Set<String> refundIds) {
        return refundIds.isEmpty() ? List.of() : refunds.findAll(refundIds);
    }

    /** Why {@code request} cannot be refunded of the payment as read, if it cannot. */
    private static Optional<RefundRefusedException> refusal(RefundablePayment read, RefundRequest request) {
        Payment payment = read.payment();
        if (payment.status() != PaymentStatus.SUCCEEDED) {
            return Optional.of(new PaymentNotRefundableException(payment.id(), "it is " + payment.status().apiName()
                    + (payment.status().isUnsettled() ? " (its outcome is not known yet)" : "")));
        }
        long left = read.reservations().leftOf(payment.amount());
        if (request.amount().isEmpty() && left == 0) {
            return Optional.of(new PaymentNotRefundableException(payment.id(), "it is refunded in full"));
        }
        long asked = request.amount().orElse(left);
        if (asked > left) {
            return Optional.of(new RefundExceedsChargeException(payment.id(), asked, left));
        }
        return Optional.empty();
    }

    private RefundAnswer existing(KeyRecord stored, RefundCommand command, RefundablePayment read) {
        if (!stored.fingerprint().equals(command.fingerprint())) {
            throw new FingerprintMismatchException();
        }
        Optional<Refund> refund = refunds.find(stored.resourceId());
        if (refund.isPresent() && refund.get().status() != RefundStatus.PENDING) {
            return new RefundAnswer(refund.get(), true);
        }
        Instant now = clock.instant();
        if (!stored.leaseExpiredAt(now)) {
            throw inFlight();
        }
        Optional<ProviderRefusal> refusal = provider.refundRefusal(read.payment().providerAccount());
        if (refusal.isPresent()) {
            if (refund.isPresent()) {
                // An earlier run recorded it and may have sent it: the refund as stored, the sweep on it.
                return new RefundAnswer(refund.get(), false);
            }
            throw provider.refusedBeforeCall(refusal.get());
        }
        if (refund.isEmpty()) {
            // No run recorded it, so none reserved or sent it: it is refused as a first request would be.
            Optional<RefundRefusedException> unrefundable = refusal(read, command.request());
            if (unrefundable.isPresent()) {
                throw unrefundable.get();
            }
        }
        KeyClaim claim;
        try {
            claim = keys.takeOver(stored, UUID.randomUUID().toString(), now, now.plus(config.idempotency().lease()))
                    .orElseThrow(this::inFlight);
        } catch (SdkException storeFailed) {
            if (refund.isPresent()) {
                return new RefundAnswer(refund.get(), false);
            }
            throw storeFailed;
        }
        LOG.infof("took over refundId=%s at epoch=%d", stored.resourceId(), claim.record().leaseEpoch());
        return run(claim, command, read, refund);
    }

    private RefundAnswer run(KeyClaim claim, RefundCommand command, RefundablePayment read, Optional<Refund> seen) {
        KeyRecord key = claim.record();
        long epoch = key.leaseEpoch();
        Payment payment = read.payment();
        reached(key.resourceId(), RefundPhase.KEY_CLAIMED, epoch);

        Refund refund;
        try {
            refund = record(key, payment, read, command.request(), seen);
        } catch (SdkException storeFailed) {
            if (seen.isPresent()) {
                return new RefundAnswer(seen.get(), false);
            }
            if (!claim.takenOver()) {
                releaseQuietly(key); // nothing recorded, nothing sent: the same key works again at once
            }
            throw storeFailed;
        }
        if (refund.status() != RefundStatus.PENDING) {
            return new RefundAnswer(refund, false); // settled by a webhook or the sweep meanwhile
        }
        reached(refund.id(), RefundPhase.REFUND_RECORDED, epoch);

        Reserved reserved;
        try {
            reserved = refunds.reserve(payment, refund);
        } catch (SdkException storeFailed) {
            // The reservation may have committed: give it back before anything else, or leave it to the sweep.
            forgetUnsent(refund, key, true);
            throw storeFailed;
        }
        if (reserved == Reserved.RELEASED) {
            // Failed by the sweep's proof that nothing arrived (its reservation given back): never sent again.
            return new RefundAnswer(refunds.find(refund.id()).orElse(refund), false);
        }
        if (reserved != Reserved.RESERVED) {
            // Never reserved by any run, so never sent by any: nothing stays under this key.
            forgetUnsent(refund, key, false);
            LOG.infof("refund refused refundId=%s paymentId=%s amount=%d: %s; nothing sent", refund.id(), payment.id(),
                    refund.amount(), reserved);
            throw reserved == Reserved.EXCEEDS
                    ? new RefundExceedsChargeException(payment.id(), refund.amount(),
                            refunds.reservationsOf(payment.id()).leftOf(payment.amount()))
                    : new PaymentNotRefundableException(payment.id(), "it is no longer succeeded");
        }
        reached(refund.id(), RefundPhase.AMOUNT_RESERVED, epoch);

        RefundResult result = accounts.reaches(payment.providerAccount()) ? provider.refund(refund, payment)
                : RefundResult.unknown(null, "the payment's provider account " + payment.providerAccount()
                        + " is not reached by this deployment");
        reached(refund.id(), RefundPhase.PROVIDER_ANSWERED, epoch);

        if (result.outcome() == ProviderOutcome.NOT_SENT && !claim.takenOver()) {
            forgetUnsent(refund, key, true); // provably nothing reached the provider in the only run there was
            throw provider.nothingSent(result.refusal(), result.detail());
        }
        RefundTransition transition = settlement(result, epoch);
        Instant now = clock.instant();
        try {
            if (transition.to() == RefundStatus.FAILED) {
                refunds.release(refund); // the provider proved it: the amount is free again
            }
            if (!refunds.apply(refund.id(), refund.tenant(), transition, Actor.refundRun(epoch), now)) {
                return afterLostSettle(refund.id(), result, epoch);
            }
        } catch (SdkException storeFailed) {
            // Sent, and the store cannot say how the settle ended: PENDING, in the sweep index (202).
            LOG.warnf("store failed settling refundId=%s outcome=%s: %s; answering pending", refund.id(),
                    result.outcome(), storeFailed.getMessage());
            return new RefundAnswer(refund, false);
        }
        reached(refund.id(), RefundPhase.SETTLED, epoch);
        if (result.outcome() == ProviderOutcome.NEEDS_REVIEW) {
            toReview(refund, result, epoch);
            return new RefundAnswer(refunds.find(refund.id()).orElse(refund), false);
        }
        return new RefundAnswer(settled(refund, transition, now), false);
    }

    /** The refund as {@code t} left it, without another read: what a replay renders from the item. */
    private static Refund settled(Refund r, RefundTransition t, Instant now) {
        return new Refund(r.id(), r.paymentId(), r.tenant(), t.to(), r.amount(), r.currency(), r.reason(), r.metadata(),
                t.providerRefundId() != null ? t.providerRefundId() : r.providerRefundId(),
                t.failureCode() != null ? t.failureCode() : r.failureCode(),
                t.reason() != null ? t.reason() : r.statusReason(), r.createdAt(), now, r.leaseEpoch(),
                r.leaseExpiresAt(), r.checkAttempts(), r.providerAccount());
    }

    /** Phase 2: the PENDING refund, recorded by this run or fenced from an earlier one; or as settled meanwhile. */
    private Refund record(KeyRecord key, Payment payment, RefundablePayment read, RefundRequest request,
            Optional<Refund> seen) {
        Instant now = clock.instant();
        Instant sweepAt = now.plus(config.idempotency().lease().multipliedBy(2));
        if (seen.isEmpty()) {
            long amount = request.amount().orElse(read.reservations().leftOf(payment.amount()));
            Refund pending = new Refund(key.resourceId(), payment.id(), payment.tenant(), RefundStatus.PENDING, amount,
                    payment.currency(), request.reason(), request.metadata(), null, null, null, now, now,
                    key.leaseEpoch(), key.leaseExpiresAt(), 0, payment.providerAccount());
            if (refunds.create(pending, sweepAt)) {
                return pending;
            }
        }
        boolean fenced = refunds.fence(key.resourceId(), key.leaseEpoch(), key.leaseExpiresAt(), sweepAt);
        Refund existing = refunds.find(key.resourceId()).orElseThrow(this::inFlight);
        if (!fenced && existing.status() == RefundStatus.PENDING) {
            throw inFlight(); // a newer run holds the fence
        }
        return existing;
    }

    private RefundTransition settlement(RefundResult result, long epoch) {
        Instant now = clock.instant();
        OptionalLong fence = OptionalLong.of(epoch);
        return switch (result.outcome()) {
            case SUCCEEDED -> new RefundTransition(RefundStatus.PENDING, RefundStatus.SUCCEEDED,
                    result.providerRefundId(), null, null, null, fence);
            case FAILED -> new RefundTransition(RefundStatus.PENDING, RefundStatus.FAILED, result.providerRefundId(),
                    result.failureCode() == null ? "failed" : result.failureCode(), "the provider refused the refund",
                    null, fence);
            // A takeover's NOT_SENT cannot know what the dead run sent: unknown, for the sweep to ask.
            case UNKNOWN, NOT_SENT -> new RefundTransition(RefundStatus.PENDING, RefundStatus.UNKNOWN,
                    result.providerRefundId(), null, result.detail(), now.plus(config.sweep().firstCheckDelay()), fence);
            // No PENDING -> NEEDS_REVIEW: UNKNOWN first, then review (toReview), due at once if that fails.
            case NEEDS_REVIEW -> new RefundTransition(RefundStatus.PENDING, RefundStatus.UNKNOWN,
                    result.providerRefundId(), null, "on the way to review: " + result.detail(), now, fence);
        };
    }

    private void toReview(Refund refund, RefundResult result, long epoch) {
        String refundId = refund.id();
        try {
            if (refunds.apply(refundId, refund.tenant(), RefundTransition.unfenced(RefundStatus.UNKNOWN, RefundStatus.NEEDS_REVIEW,
                    result.providerRefundId(), null, "refund run: " + result.detail(), null),
                    Actor.refundRun(epoch), clock.instant())) {
                LOG.warnf("refund %s moved to NEEDS_REVIEW: %s", refundId, result.detail());
            }
        } catch (SdkException storeFailed) {
            LOG.warnf("store failed moving refundId=%s to review: %s; the sweep finds it", refundId,
                    storeFailed.getMessage());
        }
    }

    /**
     * The fenced settle lost: a webhook or the sweep settled the refund first, or the SDK retried our
     * own committed write. This run's final answer is a fact like any other, applied through the
     * state machine; without one, the refund as it stands is the answer.
     */
    private RefundAnswer afterLostSettle(String refundId, RefundResult result, long epoch) {
        if (result.outcome() == ProviderOutcome.SUCCEEDED || result.outcome() == ProviderOutcome.FAILED) {
            settlement.apply(refundId, result.outcome() == ProviderOutcome.SUCCEEDED ? RefundStatus.SUCCEEDED
                    : RefundStatus.FAILED, result.providerRefundId(), result.failureCode(), null,
                    Actor.refundRun(epoch), "refund run epoch " + epoch + ", written unfenced after its fenced settle lost");
        }
        Refund current = refunds.find(refundId).orElseThrow(this::inFlight);
        if (current.status() == RefundStatus.PENDING) {
            throw inFlight(); // a newer run holds the fence, and this run learnt nothing final
        }
        return new RefundAnswer(current, false);
    }

    /**
     * Gives back the reservation (if it may be held), deletes the unsent refund and releases the key,
     * so the client may retry with it. A store failure leaves the refund PENDING for the sweep, which
     * fails a refund that holds no reservation (never sent) and asks the provider about one that does.
     */
    private void forgetUnsent(Refund refund, KeyRecord key, boolean mayBeReserved) {
        try {
            if (mayBeReserved) {
                refunds.release(refund);
            }
            if (refunds.deleteUnsent(refund.id(), key.leaseEpoch()) || refunds.find(refund.id()).isEmpty()) {
                keys.release(key);
            }
        } catch (SdkException storeFailed) {
            LOG.warnf("store failed forgetting unsent refundId=%s: %s", refund.id(), storeFailed.getMessage());
        }
    }

    private void releaseQuietly(KeyRecord key) {
        try {
            keys.release(key);
        } catch (SdkException stillFailing) {
            LOG.warnf("store failed releasing key of refundId=%s: %s; its lease ends it", key.resourceId(),
                    stillFailing.getMessage());
        }
    }

    private void reached(String refundId, RefundPhase phase, long epoch) {
        phases.fire(new RefundPhaseReached(refundId, phase, epoch));
    }

    private RequestInFlightException inFlight() {
        return new RequestInFlightException(config.charge().inFlightRetryAfter());
    }
}
