package dev.oncepay.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

/**
 * Stripe's PaymentIntents without HTTP or faults: create-and-confirm once per idempotency key,
 * record every executed charge attempt in the shared ledger, emit events, retrieve and search.
 */
final class StripeProvider {

    /** The statuses Stripe cancels: https://docs.stripe.com/api/payment_intents/cancel. */
    static final Set<PaymentIntentStatus> CANCELABLE = Set.of(PaymentIntentStatus.REQUIRES_PAYMENT_METHOD,
            PaymentIntentStatus.REQUIRES_CAPTURE, PaymentIntentStatus.REQUIRES_CONFIRMATION,
            PaymentIntentStatus.REQUIRES_ACTION, PaymentIntentStatus.PROCESSING);
    /** The statuses a confirmation may start from. */
    static final Set<PaymentIntentStatus> CONFIRMABLE = Set.of(PaymentIntentStatus.REQUIRES_PAYMENT_METHOD,
            PaymentIntentStatus.REQUIRES_CONFIRMATION, PaymentIntentStatus.REQUIRES_ACTION);

    private final ObjectMapper json;
    private final Clock clock;
    private final Ledger ledger;
    private final IdempotencyKeys keys;
    private final WebhookSender webhooks;
    /** Every PaymentIntent, in creation order (search lists them in that order). */
    private final List<PaymentIntent> intents = new ArrayList<>();
    /** Keys whose request is being processed right now: Stripe answers a second one {@code 409}. */
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    /** Errors tests scripted for the next creates, in order. */
    private final Queue<StripeScriptedError> scriptedErrors = new ConcurrentLinkedQueue<>();
    /** Errors tests scripted for the next cancels, in order. */
    private final Queue<StripeScriptedError> scriptedCancelErrors = new ConcurrentLinkedQueue<>();
    /** Each account's signing secret, by the API key that stands for the account. */
    private final Map<String, String> accountSecrets = new ConcurrentHashMap<>();
    /** The API key each PaymentIntent was created with: its account. */
    private final Map<String, String> creatorKeys = new ConcurrentHashMap<>();
    /** Payments that would succeed stay {@code processing} until {@link #settle} (a test's choice). */
    private volatile boolean settleLater;

    StripeProvider(ObjectMapper json, Clock clock, Ledger ledger, IdempotencyKeys keys, WebhookSender webhooks) {
        this.json = json;
        this.clock = clock;
        this.ledger = ledger;
        this.keys = keys;
        this.webhooks = webhooks;
    }

    void script(StripeScriptedError error) {
        scriptedErrors.add(error);
    }

    void scriptCancel(StripeScriptedError error) {
        scriptedCancelErrors.add(error);
    }

    /** The error scripted for this cancel, or {@code null}. */
    StripeScriptedError nextScriptedCancelError() {
        return scriptedCancelErrors.poll();
    }

    /** The error scripted for this create, or {@code null}. */
    StripeScriptedError nextScriptedError() {
        return scriptedErrors.poll();
    }

    /** @throws ApiError 409 {@code idempotency_key_in_use} when a request with {@code key} is in progress */
    void claim(String key) {
        if (!inFlight.add(key)) {
            throw StripeErrors.keyInFlight(key);
        }
    }

    void release(String key) {
        inFlight.remove(key);
    }

    /**
     * Creates (and, with {@code confirm=true}, confirms) the PaymentIntent unless {@code key}
     * already has an answer, which is then replayed. Stripe stores the answer of a request that
     * reached execution, card errors included.
     *
     * @param decline the attempt fails with {@code generic_decline} whatever the card
     * @param lostAnswer the key is taken to be still in flight: executed and stored, but this
     *     request is refused with {@code 409}, as when an earlier attempt's answer was lost
     * @throws ApiError 400 {@code idempotency_error} when the key was used with other parameters
     */
    ChargeOutcome create(String key, StripeForm form, PaymentIntentParams params, boolean decline, boolean lostAnswer,
            String apiKey) {
        JsonNode request = form.toJson(json);
        return keys.withKeyLocked(key, () -> {
            Optional<ChargeOutcome> replayed = replayed(key, request);
            if (replayed.isPresent()) {
                return replayed.get();
            }
            PaymentIntent intent = execute(key, params, decline, apiKey);
            int status = intent.lastPaymentError() != null ? 402 : 200;
            String answer = write(status == 402 ? StripeErrors.cardDeclined(intent, json).body(json) : intent.toJson(json));
            keys.store(key, new StoredResponse(status, answer, request, intent.createdAt()));
            if (lostAnswer) {
                throw StripeErrors.keyInFlight(key);
            }
            return new ChargeOutcome(status, answer, false);
        });
    }

    private PaymentIntent execute(String key, PaymentIntentParams params, boolean decline, String apiKey) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        String id = "pi_" + RandomIds.next();
        creatorKeys.put(id, apiKey);
        PaymentIntent created = PaymentIntent.created(id, params.amount(), params.currency(),
                params.paymentMethod().id(), params.customer(), params.description(), params.metadata(),
                id + "_secret_" + RandomIds.next(), key, now);
        if (!params.confirm()) {
            return save(created);
        }
        return attempt(created, params.paymentMethod(), decline);
    }

    /** One confirmation of {@code intent} with {@code card}: declined, waiting for 3-D Secure, processing, or paid. */
    private PaymentIntent attempt(PaymentIntent intent, StripeTestPaymentMethod card, boolean decline) {
        PaymentIntent confirming = intent.after(intent.status(), card.id(), intent.latestCharge(), null);
        if (decline || card.declineCode() != null) {
            String declineCode = card.declineCode() != null ? card.declineCode() : "generic_decline";
            String message = card.declineMessage() != null ? card.declineMessage() : "Your card was declined.";
            return fail(confirming, "card_declined", declineCode, message);
        }
        if (card.requiresAction()) {
            return save(confirming.withStatus(PaymentIntentStatus.REQUIRES_ACTION, null));
        }
        if (settleLater) {
            return save(confirming.withStatus(PaymentIntentStatus.PROCESSING, null));
        }
        return succeed(confirming);
    }

    /** A charge attempt that moved money: in the ledger, the PaymentIntent {@code succeeded}. */
    private PaymentIntent succeed(PaymentIntent intent) {
        Charge charge = recordCharge(intent, Charge.SUCCEEDED, null);
        return save(intent.after(PaymentIntentStatus.SUCCEEDED, intent.paymentMethod(), charge.id(), null));
    }

    /** A failed attempt: a declined charge in the ledger, the PaymentIntent back at {@code requires_payment_method}. */
    private PaymentIntent fail(PaymentIntent intent, String code, String declineCode, String message) {
        Charge charge = recordCharge(intent, Charge.DECLINED, declineCode);
        PaymentIntent.LastPaymentError error =
                new PaymentIntent.LastPaymentError(code, declineCode, message, intent.paymentMethod(), charge.id());
        return save(intent.after(PaymentIntentStatus.REQUIRES_PAYMENT_METHOD, null, charge.id(), error));
    }

    /**
     * The customer finished (or failed) 3-D Secure for a {@code requires_action} PaymentIntent, as
     * Stripe.js would after {@code next_action}: it succeeds or fails, with its event.
     *
     * @throws IllegalStateException when it is not waiting for authentication
     */
    PaymentIntent authenticate(String id, boolean approved) {
        return finish(id, PaymentIntentStatus.REQUIRES_ACTION, approved, "payment_intent_authentication_failure", null,
                "The provided PaymentMethod has failed authentication.");
    }

    /** From now on ({@code true}) payments that would succeed stay {@code processing} until settled. */
    void settleLater(boolean value) {
        settleLater = value;
    }

    /**
     * A {@code processing} PaymentIntent settles: succeeds (a charge in the ledger) or fails with
     * {@code generic_decline}, with its event.
     *
     * @throws IllegalStateException when it is not processing
     */
    PaymentIntent settle(String id, boolean succeeded) {
        return finish(id, PaymentIntentStatus.PROCESSING, succeeded, "card_declined", "generic_decline",
                "Your card was declined.");
    }

    private PaymentIntent finish(String id, PaymentIntentStatus expected, boolean succeeds, String code,
            String declineCode, String message) {
        synchronized (intents) {
            PaymentIntent intent = retrieve(id).orElseThrow(() -> new IllegalStateException("no PaymentIntent " + id));
            if (intent.status() != expected) {
                throw new IllegalStateException(id + " is " + intent.status().wire() + ", not " + expected.wire());
            }
            return succeeds ? succeed(intent) : fail(intent, code, declineCode, message);
        }
    }

    /**
     * Cancels a PaymentIntent in a status Stripe lets one cancel, with its
     * {@code payment_intent.canceled} event.
     *
     * @throws ApiError 404 {@code resource_missing} for an unknown id; 400
     *     {@code payment_intent_unexpected_state} (with the PaymentIntent) when it succeeded or is canceled
     */
    PaymentIntent cancel(String id, String reason) {
        synchronized (intents) {
            PaymentIntent intent = existing(id);
            if (!CANCELABLE.contains(intent.status())) {
                throw StripeErrors.unexpectedState("cancel", intent, CANCELABLE, json);
            }
            return save(intent.canceled(clock.instant().truncatedTo(ChronoUnit.SECONDS), reason));
        }
    }

    /**
     * {@code POST /v1/payment_intents/{id}/cancel}: {@link #cancel}, once per idempotency key (its
     * answer, the error included, is stored and replayed like a create's).
     */
    ChargeOutcome cancel(String key, String id, StripeForm form, String reason) {
        return once(key, "cancel " + id, form, () -> answer(() -> cancel(id, reason)));
    }

    /**
     * {@code POST /v1/payment_intents/{id}/confirm}: the customer (Stripe.js with the client secret)
     * or the merchant confirms again, with {@code card}: a PaymentIntent back at
     * {@code requires_payment_method} after a failed attempt, or not yet confirmed, is attempted as a
     * create would (a charge in the ledger, its event); once per idempotency key when one is given.
     *
     * @param clientSecret required unless {@code secretKey}: it must be the PaymentIntent's
     * @throws ApiError 400 {@code payment_intent_unexpected_state} when it is canceled, succeeded or processing
     */
    ChargeOutcome confirm(String key, String id, StripeForm form, StripeTestPaymentMethod card, String clientSecret,
            boolean secretKey) {
        Supplier<PaymentIntent> confirmation = () -> {
            synchronized (intents) {
                PaymentIntent intent = existing(id);
                if (!secretKey && !intent.clientSecret().equals(clientSecret)) {
                    throw StripeErrors.clientSecretMismatch();
                }
                if (!CONFIRMABLE.contains(intent.status())) {
                    throw StripeErrors.unexpectedState("confirm", intent, CONFIRMABLE, json);
                }
                StripeTestPaymentMethod method = card != null ? card
                        : StripeTestPaymentMethod.byId(intent.paymentMethod()).orElseThrow(
                                () -> StripeErrors.parameterMissing("payment_method"));
                return attempt(intent, method, false);
            }
        };
        return key == null ? answer(confirmation) : once(key, "confirm " + id, form, () -> answer(confirmation));
    }

    /**
     * Runs {@code action} once for {@code key}: a later request with the key and the same endpoint
     * and parameters replays its answer; with others, {@code idempotency_error}. Keys are the
     * account's, shared by every endpoint, as Stripe's are.
     */
    ChargeOutcome once(String key, String endpoint, StripeForm form, Supplier<ChargeOutcome> action) {
        ObjectNode request = form.toJson(json);
        request.put("(endpoint)", endpoint);
        return keys.withKeyLocked(key, () -> {
            Optional<ChargeOutcome> replayed = replayed(key, request);
            if (replayed.isPresent()) {
                return replayed.get();
            }
            ChargeOutcome outcome = action.get();
            keys.store(key, new StoredResponse(outcome.status(), outcome.body(), request, clock.instant()));
            return outcome;
        });
    }

    /**
     * The stored answer of {@code key}, replayed, if a request with it reached execution.
     *
     * @throws ApiError 400 {@code idempotency_error} when the key was used with other parameters
     */
    private Optional<ChargeOutcome> replayed(String key, JsonNode request) {
        return keys.find(key).map(prior -> {
            if (!prior.request().equals(request)) {
                throw StripeErrors.idempotencyMismatch(key);
            }
            return new ChargeOutcome(prior.status(), prior.body(), true);
        });
    }

    /** The PaymentIntent {@code action} leaves, a card error's {@code 402}, or the {@code 400} it refused with. */
    private ChargeOutcome answer(Supplier<PaymentIntent> action) {
        return storable(() -> {
            PaymentIntent intent = action.get();
            return intent.lastPaymentError() != null && intent.status() == PaymentIntentStatus.REQUIRES_PAYMENT_METHOD
                    ? new ChargeOutcome(402, write(StripeErrors.cardDeclined(intent, json).body(json)), false)
                    : new ChargeOutcome(200, write(intent.toJson(json)), false);
        });
    }

    /** What {@code action} answers, or the {@code 400} it refused with, to store for the key like an answer. */
    ChargeOutcome storable(Supplier<ChargeOutcome> action) {
        try {
            return action.get();
        } catch (ApiError refused) {
            if (refused.status() != 400) {
                throw refused; // not executed (a missing PaymentIntent): nothing to store
            }
            return new ChargeOutcome(400, write(refused.body(json)), false);
        }
    }

    private PaymentIntent existing(String id) {
        return retrieve(id).orElseThrow(() -> StripeErrors.resourceMissing(404, "intent",
                "No such payment_intent: '" + id + "'"));
    }

    Optional<PaymentIntent> retrieve(String id) {
        synchronized (intents) {
            for (PaymentIntent intent : intents) {
                if (intent.id().equals(id)) {
                    return Optional.of(intent);
                }
            }
            return Optional.empty();
        }
    }

    /** The PaymentIntents of {@code reference} created at least {@code lag} ago (Stripe's search index lags). */
    List<PaymentIntent> search(String reference, Duration lag) {
        Instant visibleBefore = clock.instant().minus(lag);
        synchronized (intents) {
            return intents.stream()
                    .filter(intent -> reference.equals(intent.reference()))
                    .filter(intent -> !intent.createdAt().isAfter(visibleBefore))
                    .toList();
        }
    }

    /** The newest PaymentIntent of {@code reference}. */
    Optional<PaymentIntent> latest(String reference) {
        synchronized (intents) {
            for (int i = intents.size() - 1; i >= 0; i--) {
                if (reference.equals(intents.get(i).reference())) {
                    return Optional.of(intents.get(i));
                }
            }
            return Optional.empty();
        }
    }

    /** Events about PaymentIntents created with {@code apiKey} are signed with {@code secret}. */
    void accountSecret(String apiKey, String secret) {
        accountSecrets.put(apiKey, secret);
    }

    void clearAccountSecrets() {
        accountSecrets.clear();
    }

    /** The secret of the account that created {@code intent}, if one is set; else the target's signs. */
    Optional<String> signingSecretOf(PaymentIntent intent) {
        String apiKey = creatorKeys.get(intent.id());
        return apiKey == null ? Optional.empty() : Optional.ofNullable(accountSecrets.get(apiKey));
    }

    void clear() {
        synchronized (intents) {
            intents.clear();
        }
        creatorKeys.clear();
        inFlight.clear();
        scriptedErrors.clear();
        scriptedCancelErrors.clear();
        settleLater = false;
    }

    /** Stores the new state (replacing the old one in place) and emits the event for it, if any. */
    private PaymentIntent save(PaymentIntent intent) {
        synchronized (intents) {
            int existing = -1;
            for (int i = 0; i < intents.size(); i++) {
                if (intents.get(i).id().equals(intent.id())) {
                    existing = i;
                }
            }
            if (existing < 0) {
                intents.add(intent);
            } else {
                intents.set(existing, intent);
            }
        }
        StripeEvent event = StripeEvent.forStatus(intent);
        if (event != null) {
            webhooks.publish(event.id(), event.type(), event.toJson(json), signingSecretOf(intent).orElse(null));
        }
        return intent;
    }

    /** The ledger keeps oncepay's view: upper-case currency, reference = our payment id. */
    private Charge recordCharge(PaymentIntent intent, String status, String declineCode) {
        Charge charge = new Charge("ch_" + RandomIds.next(), status, intent.reference(), intent.amount(),
                intent.currency().toUpperCase(Locale.ROOT), intent.description(), intent.paymentMethod(), declineCode,
                intent.idempotencyKey(), clock.instant().truncatedTo(ChronoUnit.MILLIS));
        ledger.record(charge);
        return charge;
    }

    String write(JsonNode node) {
        try {
            return json.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
