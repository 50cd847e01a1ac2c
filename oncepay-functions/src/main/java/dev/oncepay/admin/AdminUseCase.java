package dev.oncepay.admin;

import dev.oncepay.admin.ListCursor.ShardPosition;
import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Metrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.idempotency.ClaimAttempt;
import dev.oncepay.idempotency.ClaimAttempt.KeyClaim;
import dev.oncepay.idempotency.FingerprintMismatchException;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.IdempotencyStore;
import dev.oncepay.idempotency.KeyRecord;
import dev.oncepay.idempotency.RequestFingerprint;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.HistoryEntry;
import dev.oncepay.payment.Payment;
import dev.oncepay.order.OrderGuard;
import dev.oncepay.order.OrderPayments;
import dev.oncepay.payment.Order;
import dev.oncepay.payment.PaymentHistory;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentRepository.AttentionPage;
import dev.oncepay.payment.PaymentRepository.AttentionPosition;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.NoChargeProof;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.ProviderUnavailableException;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The operator API: lists payments that need attention from the attention index, shows a payment
 * with its history, and settles a payment in review (or unknown) after asking its provider, in one
 * conditional transition that records the operator and the reason.
 */
@ApplicationScoped
public class AdminUseCase {
    private static final Logger LOG = Logger.getLogger(AdminUseCase.class);
    /** Path of a resolution (a format of the payment id): part of the request fingerprint. */
    static final String RESOLVE_PATH = "/admin/payments/%s/resolve";
    private static final Comparator<Payment> NEWEST_FIRST = Comparator
            .comparing((Payment p) -> p.createdAt().toEpochMilli()).thenComparing(Payment::id).reversed();

    private final PaymentRepository payments;
    private final IdempotencyStore keys;
    private final ProviderGateway provider;
    private final ProviderAccounts accounts;
    private final Clock clock;
    private final OncepayConfig config;
    private final EmbeddedMetrics metrics;
    private final NoChargeProof proof;
    private final OrderGuard orders;

    public AdminUseCase(PaymentRepository payments, IdempotencyStore keys, ProviderGateway provider,
            ProviderAccounts accounts, Clock clock, OncepayConfig config, EmbeddedMetrics metrics, NoChargeProof proof,
            OrderGuard orders) {
        this.proof = proof;
        this.orders = orders;
        this.payments = payments;
        this.keys = keys;
        this.provider = provider;
        this.accounts = accounts;
        this.clock = clock;
        this.config = config;
        this.metrics = metrics;
    }

    // --- listing ------------------------------------------------------------------------------

    /**
     * Payments in {@code status} (PENDING: only those older than the sweep's first look), newest
     * first, {@code limit} at most: every shard of the index read newest first and merged, each
     * read only as far as the page needs. {@code cursor} continues an earlier page of the same query.
     */
    public AttentionList list(PaymentStatus status, String tenant, int limit, String cursor) {
        int shardCount = payments.sweepShards();
        ListCursor from = cursor == null ? null : ListCursor.decode(cursor, status, tenant, shardCount);
        Long createdBefore = status == PaymentStatus.PENDING
                ? clock.instant().minus(pendingAfter()).toEpochMilli() : null;
        List<ArrayDeque<Payment>> buffers = new ArrayList<>();
        List<ShardPosition> positions = new ArrayList<>();
        List<AttentionPosition> taken = new ArrayList<>();
        for (int shard = 0; shard < shardCount; shard++) {
            buffers.add(new ArrayDeque<>());
            positions.add(from == null ? ShardPosition.START : from.shards().get(shard));
            taken.add(null);
        }
        List<Payment> items = new ArrayList<>();
        while (items.size() < limit) {
            int newest = -1;
            for (int shard = 0; shard < shardCount; shard++) {
                fill(buffers.get(shard), positions, shard, status, createdBefore, tenant, limit - items.size());
                ArrayDeque<Payment> buffer = buffers.get(shard);
                if (!buffer.isEmpty() && (newest < 0 || NEWEST_FIRST.compare(buffer.peek(), buffers.get(newest).peek()) < 0)) {
                    newest = shard;
                }
            }
            if (newest < 0) {
                break;
            }
            Payment next = buffers.get(newest).poll();
            items.add(next);
            taken.set(newest, position(next));
        }
        boolean more = false;
        List<ShardPosition> resume = new ArrayList<>();
        for (int shard = 0; shard < shardCount; shard++) {
            // Read on where the page emptied a shard, so a cursor never leads to an empty page.
            fill(buffers.get(shard), positions, shard, status, createdBefore, tenant, 1);
            if (buffers.get(shard).isEmpty()) {
                resume.add(ShardPosition.END);
                continue;
            }
            more = true;
            // Unreturned payments already read are read again by the next page, from the last one returned.
            AttentionPosition after = taken.get(shard) != null ? taken.get(shard)
                    : from == null ? null : from.shards().get(shard).after();
            resume.add(new ShardPosition(after, false));
        }
        String nextCursor = more && !items.isEmpty()
                ? new ListCursor(status, tenant, position(items.get(items.size() - 1)), resume).encode() : null;
        return new AttentionList(items, nextCursor);
    }

    /** Reads the shard's next pages until its buffer holds a payment or the shard ends (a filtered page may hold none). */
    private void fill(ArrayDeque<Payment> buffer, List<ShardPosition> positions, int shard, PaymentStatus status,
            Long createdBefore, String tenant, int pageSize) {
        while (buffer.isEmpty() && !positions.get(shard).done()) {
            AttentionPage page = payments.attentionPage(status, shard, createdBefore, tenant,
                    positions.get(shard).after(), pageSize);
            buffer.addAll(page.payments());
            positions.set(shard, page.next().map(p -> new ShardPosition(p, false)).orElse(ShardPosition.END));
        }
    }

    /** Until the sweep first looks at a PENDING payment, it is no one's worry. */
    private Duration pendingAfter() {
        return config.admin().pendingAfter().orElse(payments.firstSweepDelay());
    }

    private static AttentionPosition position(Payment p) {
        return new AttentionPosition(p.createdAt().toEpochMilli(), p.id());
    }

    // --- one payment --------------------------------------------------------------------------

    public Optional<PaymentHistory> payment(String paymentId) {
        return payments.findWithHistory(paymentId);
    }

    /**
     * The order the payment is for, as its item stands: empty for a tenant without the guard; an
     * empty inner value for an order no payment was ever bound to.
     */
    public Optional<Optional<Order>> orderOf(Payment payment) {
        return orders.orderOf(payment);
    }

    /** A tenant's guarded order and its payments; empty if the tenant does not guard orders or the order never had a payment. */
    public Optional<OrderPayments> order(String tenant, String reference) {
        return orders.payments(tenant, reference);
    }

    // --- resolution ---------------------------------------------------------------------------

    /**
     * Settles a payment in NEEDS_REVIEW or UNKNOWN as the operator says, once per key: the key is
     * claimed first (as a payment's is), the provider asked, and the move applied as one conditional
     * transition on the status read. Anything refused writes nothing and frees the key again.
     *
     * @return empty if there is no such payment
     * @throws ResolutionNotAllowedException the payment is in another state (also: a concurrent resolution won)
     * @throws ProviderContradictsException the provider says otherwise, and no override
     * @throws ChargeMismatchException the charge named for SUCCEEDED is not the payment's (never overridable)
     * @throws NoChargeUnprovenException FAILED while "no charge" is not yet a proof, and no override
     * @throws ProviderUnavailableException the provider could not be asked, and no override
     * @throws FingerprintMismatchException the key was used for another resolution
     * @throws RequestInFlightException the key's first request is still running
     */
    public Optional<ResolutionAnswer> resolve(String operator, String paymentId, String key, ResolutionRequest request) {
        Instant now = clock.instant();
        RequestFingerprint fingerprint = fingerprint(operator, paymentId, request);
        String scope = IdempotencyKey.OPERATOR_SCOPE;
        KeyRecord proposed = new KeyRecord(new IdempotencyKey(scope, key).storageId(), scope, fingerprint, paymentId,
                UUID.randomUUID().toString(), 1, now.plus(config.idempotency().lease()),
                now.plus(config.idempotency().retention()), now);
        ClaimAttempt attempt = keys.claim(proposed, now);
        if (attempt instanceof KeyClaim claim) {
            return run(claim.record(), operator, request, false);
        }
        KeyRecord stored = ((ClaimAttempt.ExistingKey) attempt).record();
        if (!stored.fingerprint().equals(fingerprint)) {
            throw new FingerprintMismatchException();
        }
        Optional<PaymentHistory> found = payments.findWithHistory(paymentId);
        if (found.isPresent() && appliedBy(found.get(), operator, request)) {
            return Optional.of(new ResolutionAnswer(found.get(), true));
        }
        if (!stored.leaseExpiredAt(now)) {
            throw inFlight();
        }
        // Its first request died: once its lease is over, exactly one retry takes the key over.
        KeyClaim claim = keys.takeOver(stored, UUID.randomUUID().toString(), now, now.plus(config.idempotency().lease()))
                .orElseThrow(this::inFlight);
        return run(claim.record(), operator, request, true);
    }

    /**
     * Before a resolution to SUCCEEDED: refuses it while another payment holds the order (paid or
     * live), unless overridden, and counts the payment among the order's, so the order refuses
     * every later payment. Nothing is written when it refuses.
     *
     * @throws OrderHeldException another payment holds the order, and no override
     */
    private void holdOrder(Payment payment, ResolutionRequest request) {
        Optional<Payment> holder = orders.admitSuccess(payment, request.override());
        if (holder.isPresent()) {
            if (!request.override()) {
                throw new OrderHeldException(holder.get());
            }
            LOG.warnf("operator override of paymentId=%s: its order is held by paymentId=%s (%s)", payment.id(),
                    holder.get().id(), holder.get().status());
        }
    }

    /** What was asked; the operator is part of it: another operator's key is not theirs to replay. */
    static RequestFingerprint fingerprint(String operator, String paymentId, ResolutionRequest request) {
        return RequestFingerprint.of("POST", String.format(RESOLVE_PATH, paymentId),
                request.canonicalJson() + "\n" + operator);
    }

    /** The resolution under a key this request holds; the key is freed unless the payment may have moved. */
    private Optional<ResolutionAnswer> run(KeyRecord held, String operator, ResolutionRequest request,
            boolean takenOver) {
        String paymentId = held.resourceId();
        boolean keep = false;
        try {
            Optional<PaymentHistory> found = payments.findWithHistory(paymentId);
            if (found.isEmpty()) {
                return Optional.empty();
            }
            if (takenOver && appliedBy(found.get(), operator, request)) {
                keep = true; // the dead first request had applied it
                return Optional.of(new ResolutionAnswer(found.get(), false));
            }
            Payment payment = found.get().payment();
            if (payment.status() != PaymentStatus.NEEDS_REVIEW && payment.status() != PaymentStatus.UNKNOWN) {
                throw new ResolutionNotAllowedException(payment.status());
            }
            Transition move = transition(payment, request, ask(payment, request), clock.instant());
            if (request.status() == PaymentStatus.SUCCEEDED) {
                holdOrder(payment, request);
            }
            boolean moved;
            try {
                moved = payments.apply(paymentId, payment.tenant(), move, Actor.operator(operator), clock.instant());
            } catch (SdkException unknownIfWritten) {
                // It may have committed: keep the key; a retry after its lease finds out (takeover).
                keep = true;
                throw unknownIfWritten;
            }
            if (!moved) {
                PaymentHistory now = payments.findWithHistory(paymentId).orElseThrow();
                if (!appliedBy(now, operator, request)) {
                    throw new ResolutionNotAllowedException(now.payment().status()); // another move won
                }
                // The SDK retried our own committed write, whose condition then failed.
            } else {
                metrics.count(Metrics.RESOLUTIONS);
            }
            keep = true;
            LOG.infof("operator resolution paymentId=%s %s -> %s operator=%s override=%s watched=%s", paymentId,
                    payment.status(), request.status(), operator, request.override(), move.nextCheckAt() != null);
            return Optional.of(new ResolutionAnswer(payments.findWithHistory(paymentId).orElseThrow(), false));
        } finally {
            if (!keep) {
                releaseQuietly(held);
            }
        }
    }

    /**
     * The provider's charges for the payment, or empty if it could not be asked and the operator
     * overrides.
     *
     * @throws ProviderContradictsException what it says contradicts the resolution (no override)
     * @throws ChargeMismatchException the charge named for SUCCEEDED is not the payment's
     * @throws ProviderUnavailableException it could not be asked (no override)
     */
    private Optional<List<FoundCharge>> ask(Payment payment, ResolutionRequest request) {
        List<FoundCharge> charges;
        try {
            if (!accounts.reaches(payment.providerAccount())) {
                throw new IllegalStateException("provider account " + payment.providerAccount()
                        + " is not reached from this deployment");
            }
            charges = provider.chargesFor(payment);
        } catch (SdkException storeFailed) {
            throw storeFailed;
        } catch (RuntimeException unanswered) {
            String why = unanswered.getClass().getSimpleName()
                    + (unanswered.getMessage() == null ? "" : " (" + unanswered.getMessage() + ")");
            if (!request.override()) {
                throw new ProviderUnavailableException(null, "the provider could not be asked: " + why
                        + "; nothing was written", config.charge().unavailableRetryAfter());
            }
            LOG.warnf("operator override of paymentId=%s without the provider's word: %s", payment.id(), why);
            return Optional.empty();
        }
        if (request.status() == PaymentStatus.SUCCEEDED) {
            checkNamedCharge(payment, request.providerPaymentId(), charges);
        }
        charges = ours(payment, charges);
        String contradiction = contradiction(request, charges);
        if (contradiction != null) {
            if (!request.override()) {
                throw new ProviderContradictsException(contradiction + "; nothing was written (an override needs"
                        + " \"override\": true and a reason)", charges);
            }
            LOG.warnf("operator override of paymentId=%s against the provider: %s", payment.id(), contradiction);
        }
        return Optional.of(charges);
    }

    /** The charges the lookup lists as the payment's own: our reference, or none given. */
    private static List<FoundCharge> ours(Payment payment, List<FoundCharge> charges) {
        return charges.stream().filter(c -> c.reference() == null || c.reference().equals(payment.id())).toList();
    }

    /**
     * The charge a resolution to SUCCEEDED names must be the payment's: listed by the payment's own
     * provider account for it, with our reference, the payment's amount and currency. Never
     * overridable: an override stands in for a provider that cannot be asked, not for a charge that
     * settles another amount (a stray 1-cent charge) or belongs elsewhere.
     *
     * @throws ChargeMismatchException naming the first field that differs
     */
    private void checkNamedCharge(Payment payment, String named, List<FoundCharge> charges) {
        FoundCharge charge = charges.stream().filter(c -> c.id().equals(named)).findFirst().orElse(null);
        String nothingWritten = "; nothing was written, and no override applies";
        if (charge == null) {
            throw new ChargeMismatchException(ChargeMismatchException.Field.PROVIDER_ACCOUNT, "provider account "
                    + payment.providerAccount() + " lists no charge " + named + " for this payment (it lists "
                    + describe(charges) + "; its lookups may trail a charge by up to "
                    + proof.lag(payment.providerAccount()) + ")" + nothingWritten);
        }
        if (!payment.id().equals(charge.reference())) {
            throw new ChargeMismatchException(ChargeMismatchException.Field.REFERENCE, "charge " + named
                    + " carries reference " + charge.reference() + ", not this payment's id" + nothingWritten);
        }
        if (charge.amount() == null || charge.amount() != payment.amount()) {
            throw new ChargeMismatchException(ChargeMismatchException.Field.AMOUNT, "charge " + named + " is of amount "
                    + charge.amount() + ", the payment of " + payment.amount() + nothingWritten);
        }
        if (charge.currency() == null || !charge.currency().equalsIgnoreCase(payment.currency())) {
            throw new ChargeMismatchException(ChargeMismatchException.Field.CURRENCY, "charge " + named + " is in "
                    + charge.currency() + ", the payment in " + payment.currency() + nothingWritten);
        }
    }

    /** How what the provider says contradicts the resolution; {@code null} if it does not. */
    static String contradiction(ResolutionRequest request, List<FoundCharge> charges) {
        List<FoundCharge> succeeded = charges.stream().filter(c -> c.outcome() == ProviderOutcome.SUCCEEDED).toList();
        String named = request.providerPaymentId();
        if (request.status() == PaymentStatus.SUCCEEDED) {
            if (succeeded.stream().noneMatch(c -> c.id().equals(named))) {
                return "the provider holds no succeeded charge " + named + " (it reports " + describe(charges) + ")";
            }
            if (succeeded.size() > 1) {
                return "the provider holds more than one succeeded charge: " + describe(succeeded);
            }
            return null;
        }
        if (!succeeded.isEmpty()) {
            return "the provider holds a succeeded charge: " + describe(succeeded);
        }
        List<FoundCharge> open = charges.stream().filter(c -> c.outcome() != ProviderOutcome.FAILED).toList();
        if (!open.isEmpty()) {
            return "the provider holds a charge that is not final: " + describe(open);
        }
        if (named != null && charges.stream().noneMatch(c -> c.id().equals(named))) {
            return "the provider holds no charge " + named + " (it reports " + describe(charges) + ")";
        }
        return null;
    }

    /**
     * The move the resolution makes. A FAILED resolution carries the provider's decline code where
     * it has the failed charge; {@code not_charged} only where the provider has no charge at all and
     * that is a proof ({@link NoChargeProof}); else {@link Payment#RESOLVED_FAILED}. Without that proof a
     * FAILED resolution needs an override, and then stays in the sweep, watched until the proof
     * holds: a charge showing up meanwhile moves it to NEEDS_REVIEW.
     *
     * @param charges the payment's own charges as its provider account listed them; empty if it
     *        could not be asked (an override)
     * @throws NoChargeUnprovenException the provider has no charge, not yet a proof, and no override
     */
    private Transition transition(Payment payment, ResolutionRequest request, Optional<List<FoundCharge>> charges,
            Instant now) {
        String named = request.providerPaymentId();
        if (request.status() != PaymentStatus.FAILED) {
            return new Transition(payment.status(), request.status(), named, null, request.recordedReason(), null,
                    OptionalLong.empty());
        }
        List<FoundCharge> known = charges.orElse(List.of());
        Optional<FoundCharge> failed = known.stream()
                .filter(c -> c.outcome() == ProviderOutcome.FAILED)
                .filter(c -> named == null ? known.size() == 1 : c.id().equals(named)).findFirst();
        boolean declined = failed.isPresent() && known.stream().allMatch(c -> c.outcome() == ProviderOutcome.FAILED);
        Instant provenAt = proof.provenAt(payment);
        boolean proven = charges.isPresent() && known.isEmpty() && !now.isBefore(provenAt);
        if (charges.isPresent() && known.isEmpty() && !proven && !request.override()) {
            throw new NoChargeUnprovenException(provenAt, "provider account " + payment.providerAccount()
                    + " lists no charge for this payment, but that proves nothing was charged only from " + provenAt
                    + " (its lookups may trail a charge by up to " + proof.lag(payment.providerAccount())
                    + ", and a charge may reach it until its idempotency window has passed); nothing was written"
                    + " (an override needs \"override\": true and a reason, and stays watched)");
        }
        String declineCode = failed.map(FoundCharge::declineCodeOrStatus)
                .orElse(proven && named == null ? Payment.NOT_CHARGED : Payment.RESOLVED_FAILED);
        // Watched: the failure stands on the operator's word alone while a charge could still show up
        // (not when the operator overrode a succeeded charge they saw: that is their decision).
        boolean watched = !declined && !proven && known.stream().noneMatch(c -> c.outcome() == ProviderOutcome.SUCCEEDED);
        Instant nextCheckAt = watched ? now.plus(config.sweep().firstCheckDelay()) : null;
        return new Transition(payment.status(), PaymentStatus.FAILED, failed.map(FoundCharge::id).orElse(named),
                declineCode, request.recordedReason(), nextCheckAt, OptionalLong.empty());
    }

    /** Whether the payment's history holds this very resolution (same operator, outcome, charge, reason). */
    private static boolean appliedBy(PaymentHistory history, String operator, ResolutionRequest request) {
        Actor actor = Actor.operator(operator);
        for (HistoryEntry e : history.history()) {
            if (e.actor().equals(actor) && e.to() == request.status()
                    && Objects.equals(e.reason(), request.recordedReason())
                    && (request.providerPaymentId() == null
                            || request.providerPaymentId().equals(e.providerPaymentId()))) {
                return true;
            }
        }
        return false;
    }

    private static String describe(List<FoundCharge> charges) {
        return charges.isEmpty() ? "no charge"
                : charges.stream().map(c -> c.id() + "=" + c.providerStatus()).collect(Collectors.joining(", "));
    }

    private void releaseQuietly(KeyRecord held) {
        try {
            keys.release(held);
        } catch (SdkException stillFailing) {
            LOG.warnf("store failed releasing an operator key for paymentId=%s: %s; its lease ends it",
                    held.resourceId(), stillFailing.getMessage());
        }
    }

    private RequestInFlightException inFlight() {
        return new RequestInFlightException(config.charge().inFlightRetryAfter());
    }
}
