package dev.oncepay.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The provider's business logic without HTTP or faults: execute a charge once per idempotency
 * key, record it in the ledger, emit its webhook, and look charges up by reference.
 */
final class SimulatedProvider {

    static final String DECLINE_CODE = "card_declined";

    private final ObjectMapper json;
    private final Clock clock;
    private final Ledger ledger;
    private final IdempotencyKeys keys;
    private final WebhookSender webhooks;

    SimulatedProvider(ObjectMapper json, Clock clock, Ledger ledger, IdempotencyKeys keys, WebhookSender webhooks) {
        this.json = json;
        this.clock = clock;
        this.ledger = ledger;
        this.keys = keys;
        this.webhooks = webhooks;
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
        return keys.withKeyLocked(key, () -> {
            var prior = keys.find(key);
            if (prior.isPresent()) {
                if (!prior.get().request().equals(body)) {
                    throw new ApiError(409, "idempotency_mismatch",
                            "Idempotency-Key " + key + " was already used with a different request body");
                }
                return new ChargeOutcome(prior.get().status(), prior.get().body(), true);
            }
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
        });
    }

    /** The charges of {@code reference} executed at least {@code lag} ago (a provider's search index lags). */
    List<Charge> lookup(String reference, Duration lag) {
        Instant visibleBefore = clock.instant().minus(lag);
        return ledger.byReference(reference).stream().filter(c -> !c.createdAt().isAfter(visibleBefore)).toList();
    }

    private String write(JsonNode node) {
        try {
            return json.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
