package dev.oncepay.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * The provider's business logic without HTTP or faults: execute a charge or a refund once per
 * idempotency key, record it in the ledger, emit its webhook, and look charges and refunds up.
 */
final class SimulatedProvider {

    static final String DECLINE_CODE = "card_declined";

    private final ObjectMapper json;
    private final Clock clock;
    private final Ledger ledger;
    private final IdempotencyKeys keys;
    private final WebhookSender webhooks;
    /** One lock per charge, shared with the Stripe API's refunds: refunds of one charge check and record in turn. */
    private final KeyedLocks chargeLocks;
    private final RefundSettler settler;

    SimulatedProvider(ObjectMapper json, Clock clock, Ledger ledger, IdempotencyKeys keys, WebhookSender webhooks,
            KeyedLocks chargeLocks, RefundSettler settler) {
        this.json = json;
        this.clock = clock;
        this.ledger = ledger;
        this.keys = keys;
        this.webhooks = webhooks;
        this.chargeLocks = chargeLocks;
        this.settler = settler;
    }

    /**
     * Executes the charge unless {@code key} already has an answer. The check and the execution
     * happen under the key's lock, so concurrent identical requests execute at most once.
     *
     * @param body the parsed request, compared with the stored one on a retry
     * @param inFlight the key is taken to be still in flight: a new charge is executed and stored,
     *     as by an earlier attempt whose answer was lost, but this request is refused
     * @throws ApiError 409 when the key was used with a different body, or is {@code inFlight}
     */
    ChargeOutcome charge(String key, JsonNode body, ChargeParams request, boolean decline, boolean inFlight) {
        return keys.withKeyLocked(key, () -> replayed(key, body).orElseGet(() -> {
            Charge charge = new Charge(
                    "ch_" + RandomIds.next(),
                    decline ? Charge.DECLINED : Charge.SUCCEEDED,
                    request.reference(),
                    request.amount(),
                    request.currency(),
                    request.description(),
                    request.paymentMethod(),
                    decline ? DECLINE_CODE : null,
                    key,
                    clock.instant().truncatedTo(ChronoUnit.MILLIS));
            String answer = write(charge.toJson(json));
            ledger.record(charge);
            keys.store(key, new StoredResponse(200, answer, body, charge.createdAt()));
            WebhookEvent event = WebhookEvent.forCharge(charge);
            webhooks.publish(event.id(), event.type(), event.toJson(json));
            if (inFlight) {
                throw ApiError.keyInFlight(key);
            }
            return new ChargeOutcome(200, answer, false);
        }));
    }

    /**
     * Executes the refund unless {@code key} already has an answer, under the key's lock and then
     * the charge's, so concurrent refunds of one charge never hold more than it captured.
     *
     * @param plan {@code decline}: the refund fails; {@code nonFinal}: it is {@code pending} and
     *     settles after {@code settleMs}; {@code conflict}: as for {@link #charge}
     * @throws ApiError 404 for an unknown charge, 400 for a charge that did not succeed or a
     *     refund larger than what is left of it; nothing is recorded then
     */
    ChargeOutcome refund(String key, JsonNode body, RefundParams request, FaultPlan plan, long settleMs) {
        return keys.withKeyLocked(key, () -> replayed(key, body).orElseGet(() -> {
            Refund refund = chargeLocks.withLocked(request.charge(), () -> accept(key, request, plan));
            String answer = write(refund.toJson(json));
            keys.store(key, new StoredResponse(200, answer, body, refund.createdAt()));
            publish(refund);
            if (refund.status() == RefundStatus.PENDING) {
                RefundStatus outcome = plan.decline() ? RefundStatus.FAILED : RefundStatus.SUCCEEDED;
                settler.later(() -> settle(refund, outcome), settleMs);
            }
            if (plan.conflict()) {
                throw ApiError.keyInFlight(key);
            }
            return new ChargeOutcome(200, answer, false);
        }));
    }

    private Refund accept(String key, RefundParams request, FaultPlan plan) {
        Charge charge = ledger.charge(request.charge())
                .orElseThrow(() -> new ApiError(404, "not_found", "no such charge: " + request.charge()));
        if (!Charge.SUCCEEDED.equals(charge.status())) {
            throw new ApiError(400, "charge_not_refundable", "charge " + charge.id() + " is " + charge.status());
        }
        long left = charge.amount() - ledger.refunded(charge.id());
        long amount = request.amount().orElse(left);
        if (amount > left || amount == 0) {
            throw new ApiError(400, "amount_too_large",
                    "a refund of " + amount + " exceeds the " + left + " left of charge " + charge.id());
        }
        RefundStatus status = plan.nonFinal() ? RefundStatus.PENDING
                : plan.decline() ? RefundStatus.FAILED : RefundStatus.SUCCEEDED;
        Refund refund = new Refund("re_" + RandomIds.next(), charge.id(), amount, charge.currency(), status,
                request.reference(), request.metadata(), key, clock.instant().truncatedTo(ChronoUnit.MILLIS));
        ledger.record(refund);
        return refund;
    }

    /** Settles {@code pending} unless a reset forgot it meanwhile, then reports it. */
    private void settle(Refund pending, RefundStatus outcome) {
        Optional<Refund> settled = chargeLocks.withLocked(pending.charge(), () -> ledger.refund(pending.id())
                .filter(refund -> refund.status() == RefundStatus.PENDING)
                .map(refund -> {
                    Refund done = refund.settled(outcome);
                    ledger.update(done);
                    return done;
                }));
        settled.ifPresent(this::publish);
    }

    private void publish(Refund refund) {
        String type = refund.eventType();
        if (type != null) {
            String id = WebhookEvent.newId();
            webhooks.publish(id, type,
                    WebhookEvent.envelope(json, id, type, clock.instant().getEpochSecond(), refund.toJson(json)));
        }
    }

    /** The stored answer for {@code key}, marked replayed; empty when the key is free. */
    private Optional<ChargeOutcome> replayed(String key, JsonNode body) {
        return keys.find(key).map(prior -> {
            if (!prior.request().equals(body)) {
                throw new ApiError(409, "idempotency_mismatch",
                        "Idempotency-Key " + key + " was already used with a different request body");
            }
            return new ChargeOutcome(prior.status(), prior.body(), true);
        });
    }

    /** The charges of {@code reference} executed at least {@code lag} ago (a provider's search index lags). */
    List<Charge> lookup(String reference, Duration lag) {
        Instant visibleBefore = clock.instant().minus(lag);
        return ledger.byReference(reference).stream().filter(c -> !c.createdAt().isAfter(visibleBefore)).toList();
    }

    /** The refunds with {@code reference} accepted at least {@code lag} ago. */
    List<Refund> lookupRefunds(String reference, Duration lag) {
        Instant visibleBefore = clock.instant().minus(lag);
        return ledger.refundsByReference(reference).stream().filter(r -> !r.createdAt().isAfter(visibleBefore)).toList();
    }

    /** The refund {@code id} as it stands now (a retrieve by id does not lag). */
    Optional<Refund> refund(String id) {
        return ledger.refund(id);
    }

    private String write(JsonNode node) {
        try {
            return json.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
