package dev.oncepay.provider.stripe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.validation.FieldError;
import dev.oncepay.payment.CustomerAction;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.Refund;
import dev.oncepay.provider.spi.FoundRefund;
import dev.oncepay.provider.spi.RefundResult;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.CancelOutcome;
import dev.oncepay.provider.spi.CancelResult;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.IndeterminateProviderFault;
import dev.oncepay.provider.spi.ProviderAdapter;
import dev.oncepay.provider.policy.ProviderCalls;
import dev.oncepay.provider.transport.ProviderHttp;
import dev.oncepay.provider.spi.ProviderReply;
import dev.oncepay.provider.spi.ReplyClass;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Stripe's PaymentIntents as a provider ({@code stripe}): a charge is one create-and-confirm
 * ({@code POST /v1/payment_intents}, form-encoded, {@code Idempotency-Key} = the payment's provider
 * key), a lookup a retrieve by the PaymentIntent's id, or, when the create's answer was lost, a
 * search by our payment id in its metadata. A refund is a {@code POST /v1/refunds} of that
 * PaymentIntent (its key the refund's provider key, our refund id in its metadata), its lookup the
 * PaymentIntent's list of refunds.
 *
 * <p>Read strictly (design rule 11): only a PaymentIntent of ours (our id in its metadata, our
 * amount and currency) that says {@code succeeded}, or a refusal Stripe states in words this
 * adapter knows, is final. {@code Stripe-Should-Retry} decides retry vs no answer where present.
 * An {@code idempotency_error} (our key with other parameters: a bug or tampering) goes to review,
 * never to a decline.
 */
@ApplicationScoped
public class StripeAdapter implements ProviderAdapter {

    public static final String ID = "stripe";
    private static final Pattern PAYMENT_METHOD = Pattern.compile("pm_[A-Za-z0-9_]{1,250}");
    private static final Pattern CUSTOMER = Pattern.compile("cus_[A-Za-z0-9]{1,250}");
    private static final String PAYMENT_INTENTS = "/v1/payment_intents";
    private static final String REFUNDS = "/v1/refunds";
    /** The words Stripe takes as a refund's {@code reason}; any other reason goes in the metadata. */
    private static final Set<String> REFUND_REASONS = Set.of("duplicate", "fraudulent", "requested_by_customer");
    /** The refund metadata key of the merchant's free-text reason. */
    private static final String REASON_KEY = "oncepay_reason";
    private static final Set<String> OUR_REFUND_METADATA =
            Set.of(StripeRefund.REFERENCE_KEY, StripePaymentIntent.REFERENCE_KEY, REASON_KEY);

    private final ObjectMapper json;
    private final Duration searchLag;
    private final String apiVersion;
    private final ProviderHttp http;

    public StripeAdapter(ObjectMapper json, OncepayConfig config, ProviderHttp http) {
        this.json = json;
        this.searchLag = config.provider().stripe().searchLag();
        this.apiVersion = config.provider().stripe().apiVersion();
        this.http = http;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<FieldError> check(PaymentInstrument instrument) {
        List<FieldError> errors = new ArrayList<>();
        String method = instrument.paymentMethod();
        if (method == null || method.isEmpty()) {
            errors.add(new FieldError("paymentMethod", "required: a Stripe PaymentMethod id such as pm_card_visa"));
        } else if (!PAYMENT_METHOD.matcher(method).matches()) {
            errors.add(new FieldError("paymentMethod",
                    "must be a Stripe PaymentMethod id: pm_ followed by 1-250 letters, digits or _"));
        }
        String customer = instrument.customer();
        if (customer != null && !CUSTOMER.matcher(customer).matches()) {
            errors.add(new FieldError("customer", "must be a Stripe Customer id: cus_ followed by 1-250 letters or digits"));
        }
        return errors;
    }

    @Override
    public ProviderReply sendCharge(AccountEndpoint endpoint, Payment payment) {
        StringJoiner form = new StringJoiner("&");
        field(form, "amount", Long.toString(payment.amount()));
        field(form, "currency", payment.currency().toLowerCase(Locale.ROOT));
        field(form, "confirm", "true");
        field(form, "metadata[" + StripePaymentIntent.REFERENCE_KEY + "]", payment.id());
        PaymentInstrument instrument = payment.instrument();
        if (instrument.paymentMethod() != null) {
            field(form, "payment_method", instrument.paymentMethod());
        }
        if (instrument.customer() != null) {
            field(form, "customer", instrument.customer());
        }
        if (payment.reference() != null) {
            field(form, "metadata[oncepay_reference]", payment.reference());
        }
        if (payment.description() != null) {
            field(form, "description", payment.description());
        }
        return post(endpoint, PAYMENT_INTENTS, payment.providerIdempotencyKey(), form);
    }

    @Override
    public ProviderReply sendLookup(AccountEndpoint endpoint, Payment payment) {
        Map<String, String> headers = readHeaders(endpoint);
        String id = payment.providerPaymentId();
        if (id != null && StripePaymentIntent.ID.matcher(id).matches()) {
            return http.get(ProviderHttp.resolve(endpoint.baseUrl(), PAYMENT_INTENTS + "/" + id), headers);
        }
        String query = "metadata['" + StripePaymentIntent.REFERENCE_KEY + "']:'" + quoted(payment.id()) + "'";
        return http.get(ProviderHttp.resolve(endpoint.baseUrl(), PAYMENT_INTENTS + "/search?query=" + ProviderHttp.encoded(query)),
                headers);
    }

    /**
     * {@code POST /v1/payment_intents/{id}/cancel} ({@code cancellation_reason=abandoned}) with the
     * key {@code oncepay-<paymentId>-cancel-<attempt>}: one per sweep check, because Stripe replays
     * a key's first answer for 24 h, also a {@code 500} or a refusal while the PaymentIntent was
     * {@code processing}; a cancel itself is harmless to repeat.
     */
    @Override
    public ProviderReply sendCancel(AccountEndpoint endpoint, Payment payment, int attempt) {
        String id = paymentIntentOf(payment, "cancel");
        StringJoiner form = new StringJoiner("&");
        field(form, "cancellation_reason", "abandoned");
        return post(endpoint, PAYMENT_INTENTS + "/" + id + "/cancel", payment.providerIdempotencyKey() + "-cancel-" + attempt,
                form);
    }

    /** One form-encoded {@code POST} under {@code idempotencyKey}, with our key and pinned API version. */
    private ProviderReply post(AccountEndpoint endpoint, String path, String idempotencyKey, StringJoiner form) {
        return http.post(ProviderHttp.resolve(endpoint.baseUrl(), path),
                Map.of("Authorization", authorization(endpoint), "Stripe-Version", apiVersion,
                        "Idempotency-Key", idempotencyKey),
                "application/x-www-form-urlencoded", form.toString());
    }

    /**
     * Canceled only when Stripe shows our PaymentIntent {@code canceled}; lost to a success only when
     * it refuses with {@code payment_intent_unexpected_state} showing it {@code succeeded}; anything
     * else is no answer yet (the sweep asks again).
     */
    @Override
    public CancelResult readCancel(ProviderReply answer, Payment payment) {
        String said = "Stripe answered the cancel with HTTP " + answer.status();
        JsonNode root = parse(answer.body());
        JsonNode shown = root;
        if (answer.status() / 100 != 2) {
            StripeError error = StripeError.read(root);
            if (error == null || !StripeError.UNEXPECTED_STATE.equals(error.code())) {
                return new CancelResult(CancelOutcome.NOT_CANCELED, said + (error == null ? "" : " " + error));
            }
            shown = error.paymentIntent();
        }
        StripePaymentIntent intent = StripePaymentIntent.read(shown);
        if (intent == null || !intent.id().equals(payment.providerPaymentId()) || !payment.id().equals(intent.reference())) {
            return new CancelResult(CancelOutcome.NOT_CANCELED, said + " about no PaymentIntent of this payment");
        }
        return new CancelResult(intent.status().cancelOutcome(), said + ": PaymentIntent " + intent);
    }

    /**
     * One form field: the value URL-encoded, the name (always one of ours: letters, {@code _} and
     * brackets) as written, brackets unencoded, as ProviderWireFormatTest fixes the
     * form byte for byte and StripeWireCompatibilityTest matches it with stripe-java's.
     */
    private static void field(StringJoiner form, String name, String value) {
        form.add(name + "=" + ProviderHttp.encoded(value));
    }

    @Override
    public ReplyClass classify(ProviderReply reply) {
        int status = reply.status();
        if (status == 401 || status == 403) {
            return new ReplyClass.CredentialsRefused("Stripe refused our API key (HTTP " + status + ")");
        }
        if (status / 100 == 2) {
            return new ReplyClass.Answer();
        }
        // 429 (and 408) refuse the request before it runs; 5xx and 409 (the key in use by a request
        // still running there) may mean it ran, or is running.
        boolean refusedBeforeRunning = status == 429 || status == 408;
        boolean noAnswer = refusedBeforeRunning || status == 409 || status >= 500;
        String shouldRetry = reply.header("Stripe-Should-Retry");
        String detail = "Stripe answered HTTP " + status + errorSummary(reply)
                + (shouldRetry == null ? "" : ", Stripe-Should-Retry: " + shouldRetry);
        if ("true".equals(shouldRetry) || (shouldRetry == null && noAnswer)) {
            return new ReplyClass.Retry(detail, !refusedBeforeRunning, ProviderCalls.retryAfter(reply.header("Retry-After")));
        }
        if (noAnswer) {
            return new ReplyClass.NoAnswer(detail, !refusedBeforeRunning);
        }
        return new ReplyClass.Answer(); // 400, 402, 404 and the like: readCharge decides what they say
    }

    @Override
    public ChargeResult readCharge(ProviderReply answer, Payment payment) {
        String unclear = "Stripe answered HTTP " + answer.status();
        JsonNode root = parse(answer.body());
        if (answer.status() / 100 == 2) {
            StripePaymentIntent intent = StripePaymentIntent.read(root);
            if (intent == null) {
                return ChargeResult.unknown(unclear + (root == null ? " without a readable body" : " with a body that is no PaymentIntent"));
            }
            if (!intent.about(payment)) {
                return ChargeResult.unknown(unclear + " about another PaymentIntent: " + intent);
            }
            return chargeResult(intent, unclear);
        }
        StripeError error = StripeError.read(root);
        if (error == null) {
            return ChargeResult.unknown(unclear + ", which is no outcome without Stripe's error");
        }
        if (StripeError.IDEMPOTENCY_ERROR.equals(error.type())) {
            return ChargeResult.review(null, unclear + " idempotency_error: our provider key " + payment.providerIdempotencyKey()
                    + " was used with other parameters (a bug or tampering); nothing is assumed about the charge");
        }
        if (answer.status() == 402 && StripeError.CARD_ERROR.equals(error.type())) {
            StripePaymentIntent intent = StripePaymentIntent.read(error.paymentIntent());
            if (intent != null && !intent.about(payment)) {
                return ChargeResult.unknown(unclear + " card_error about another PaymentIntent: " + intent);
            }
            if (intent == null) {
                return ChargeResult.failed(null, error.failureCode());
            }
            // The declined PaymentIntent stays confirmable (requires_payment_method) until canceled.
            return intent.status().confirmable() ? ChargeResult.failedOpen(intent.id(), error.failureCode())
                    : ChargeResult.failed(intent.id(), error.failureCode());
        }
        if ((answer.status() == 400 || answer.status() == 404) && StripeError.INVALID_REQUEST_ERROR.equals(error.type())) {
            // Refused as invalid before anything ran (Stripe stores no result for it): it never can succeed as sent.
            return ChargeResult.failed(null, "provider_rejected_" + (error.code() != null ? error.code() : answer.status()));
        }
        return ChargeResult.unknown(unclear + " " + error + ", which is no outcome");
    }

    /** A PaymentIntent of ours, by the one status mapping; a customer's task where it waits for one. */
    private ChargeResult chargeResult(StripePaymentIntent intent, String unclear) {
        return switch (intent.outcome()) {
            case SUCCEEDED -> ChargeResult.succeeded(intent.id());
            case FAILED -> intent.failedButOpen() ? ChargeResult.failedOpen(intent.id(), intent.declineCode())
                    : ChargeResult.failed(intent.id(), intent.declineCode());
            case UNKNOWN, NOT_SENT, NEEDS_REVIEW -> {
                String notFinal = unclear + ": PaymentIntent " + intent.id() + " is '" + intent.statusWord() + "', not final";
                CustomerAction action = intent.customerAction();
                if (action != null) {
                    yield ChargeResult.awaitingCustomer(intent.id(), action,
                            notFinal + "; waits for the customer (" + StripePaymentIntent.text(intent.nextAction(), "type") + ")");
                }
                yield ChargeResult.notFinal(intent.id(), notFinal);
            }
        };
    }

    @Override
    public List<FoundCharge> readLookup(ProviderReply answer, Payment payment) {
        String unclear = "Stripe lookup answered HTTP " + answer.status();
        JsonNode root = lookupAnswer(answer, unclear);
        if ("payment_intent".equals(StripePaymentIntent.text(root, "object"))) {
            return List.of(ours(StripePaymentIntent.read(root), payment, unclear).found());
        }
        JsonNode data = root.get("data");
        if (!"search_result".equals(StripePaymentIntent.text(root, "object")) || data == null || !data.isArray()) {
            throw new IndeterminateProviderFault(unclear + " with neither a PaymentIntent nor a search result with its data list", null);
        }
        JsonNode hasMore = root.get("has_more");
        if (data.isEmpty() && (hasMore == null || !hasMore.isBoolean() || hasMore.booleanValue())) {
            throw new IndeterminateProviderFault(unclear + " with an empty page that does not say it is the last", null);
        }
        List<FoundCharge> found = new ArrayList<>();
        for (JsonNode element : data) {
            found.add(ours(StripePaymentIntent.read(element), payment, unclear).found());
        }
        return List.copyOf(found);
    }

    /** A lookup's body as a JSON object; anything else, an error answer included, is no answer at all. */
    private JsonNode lookupAnswer(ProviderReply answer, String unclear) {
        if (answer.status() / 100 != 2) {
            throw new IndeterminateProviderFault(unclear + errorSummary(answer), null);
        }
        JsonNode root = parse(answer.body());
        if (root == null || !root.isObject()) {
            throw new IndeterminateProviderFault(unclear + " without a readable body", null);
        }
        return root;
    }

    /**
     * A listed PaymentIntent must be well-formed and carry our payment id (asked for by id or by that
     * metadata); an amount or currency that differs is left for reconcile to judge.
     */
    private static StripePaymentIntent ours(StripePaymentIntent intent, Payment payment, String unclear) {
        if (intent == null) {
            throw new IndeterminateProviderFault(unclear + " listing something that is no PaymentIntent", null);
        }
        if (!payment.id().equals(intent.reference())) {
            throw new IndeterminateProviderFault(unclear + " listing a PaymentIntent of another payment: " + intent, null);
        }
        return intent;
    }

    /**
     * {@code POST /v1/refunds} of the payment's PaymentIntent under the refund's provider key. Stripe
     * takes a {@code reason} only from its own three words; the merchant's free text travels in the
     * metadata, as do our refund and payment ids, which the lookup and the refund events match on.
     */
    @Override
    public ProviderReply sendRefund(AccountEndpoint endpoint, Refund refund, Payment payment) {
        String intent = paymentIntentOf(payment, "refund");
        StringJoiner form = new StringJoiner("&");
        field(form, "payment_intent", intent);
        field(form, "amount", Long.toString(refund.amount()));
        if (refund.reason() != null && REFUND_REASONS.contains(refund.reason())) {
            field(form, "reason", refund.reason());
        }
        // Sorted, so that every attempt under the key sends the same bytes; our own keys win over the
        // merchant's, as the lookup and the events find the refund by them.
        Map<String, String> metadata = new TreeMap<>(refund.metadata());
        metadata.keySet().removeAll(OUR_REFUND_METADATA);
        metadata.forEach((key, value) -> form.add("metadata[" + ProviderHttp.encoded(key) + "]=" + ProviderHttp.encoded(value)));
        field(form, "metadata[" + StripeRefund.REFERENCE_KEY + "]", refund.id());
        field(form, "metadata[" + StripePaymentIntent.REFERENCE_KEY + "]", payment.id());
        if (refund.reason() != null && !REFUND_REASONS.contains(refund.reason())) {
            field(form, "metadata[" + REASON_KEY + "]", refund.reason());
        }
        return post(endpoint, REFUNDS, refund.providerIdempotencyKey(), form);
    }

    /**
     * Final only for a Refund of ours in Stripe's words ({@link StripeRefundStatus}), or a request
     * Stripe refused as invalid, which refunded nothing; an {@code idempotency_error} goes to review.
     */
    @Override
    public RefundResult readRefund(ProviderReply answer, Refund refund) {
        String unclear = "Stripe answered the refund with HTTP " + answer.status();
        JsonNode root = parse(answer.body());
        if (answer.status() / 100 == 2) {
            StripeRefund shown = StripeRefund.read(root);
            if (shown == null) {
                return RefundResult.unknown(null, unclear + (root == null ? " without a readable body" : " with a body that is no Refund"));
            }
            if (!shown.about(refund)) {
                return RefundResult.unknown(null, unclear + " about another Refund: " + shown);
            }
            return switch (shown.status().outcome()) {
                case SUCCEEDED -> RefundResult.succeeded(shown.id());
                case FAILED -> RefundResult.failed(shown.id(), shown.failureCode());
                case UNKNOWN, NOT_SENT, NEEDS_REVIEW -> RefundResult.unknown(shown.id(),
                        unclear + ": Refund " + shown.id() + " is '" + shown.statusWord() + "', not final");
            };
        }
        StripeError error = StripeError.read(root);
        if (error == null) {
            return RefundResult.unknown(null, unclear + ", which is no outcome without Stripe's error");
        }
        if (StripeError.IDEMPOTENCY_ERROR.equals(error.type())) {
            return RefundResult.review(null, unclear + " idempotency_error: our provider key " + refund.providerIdempotencyKey()
                    + " was used with other parameters (a bug or tampering); nothing is assumed about the refund");
        }
        int status = answer.status();
        if ((status == 400 || status == 402 || status == 404) && StripeError.INVALID_REQUEST_ERROR.equals(error.type())) {
            // Refused as invalid before anything ran (amount_too_large, charge_already_refunded, resource_missing…).
            return RefundResult.failed(null, error.code() != null ? error.code() : "provider_rejected_" + status);
        }
        return RefundResult.unknown(null, unclear + " " + error + ", which is no outcome");
    }

    /** {@code GET /v1/refunds} of the payment's PaymentIntent: one page of Stripe's largest size. */
    @Override
    public ProviderReply sendRefundLookup(AccountEndpoint endpoint, Refund refund, Payment payment) {
        String intent = paymentIntentOf(payment, "look up refunds");
        return http.get(ProviderHttp.resolve(endpoint.baseUrl(), REFUNDS + "?payment_intent=" + ProviderHttp.encoded(intent)
                + "&limit=100"), readHeaders(endpoint));
    }

    /**
     * The listed Refunds with our refund id in their metadata; the PaymentIntent's other refunds are
     * passed over. None is an answer only from a well-formed last page: with more pages, ours may be
     * on one of them.
     */
    @Override
    public List<FoundRefund> readRefundLookup(ProviderReply answer, Refund refund) {
        String unclear = "Stripe refund lookup answered HTTP " + answer.status();
        JsonNode root = lookupAnswer(answer, unclear);
        JsonNode data = root.get("data");
        JsonNode hasMore = root.get("has_more");
        if (!"list".equals(StripePaymentIntent.text(root, "object")) || data == null || !data.isArray()
                || hasMore == null || !hasMore.isBoolean()) {
            throw new IndeterminateProviderFault(unclear + " with no list of its data and has_more", null);
        }
        List<FoundRefund> found = new ArrayList<>();
        for (JsonNode element : data) {
            StripeRefund listed = StripeRefund.read(element);
            if (listed == null) {
                throw new IndeterminateProviderFault(unclear + " listing something that is no Refund", null);
            }
            if (refund.id().equals(listed.reference())) {
                found.add(listed.found());
            }
        }
        if (found.isEmpty() && hasMore.booleanValue()) {
            throw new IndeterminateProviderFault(unclear + " with none of ours on a page that is not the last", null);
        }
        return List.copyOf(found);
    }

    /** The PaymentIntent a refund is of; a payment without one never reached Stripe as a charge. */
    private static String paymentIntentOf(Payment payment, String what) {
        String id = payment.providerPaymentId();
        if (id == null || !StripePaymentIntent.ID.matcher(id).matches()) {
            throw new IllegalArgumentException("no PaymentIntent id to " + what + " for payment " + payment.id());
        }
        return id;
    }

    @Override
    public Duration defaultLookupLag() {
        return searchLag;
    }

    private static String authorization(AccountEndpoint endpoint) {
        return "Bearer " + endpoint.apiKey();
    }

    private Map<String, String> readHeaders(AccountEndpoint endpoint) {
        return Map.of("Authorization", authorization(endpoint), "Stripe-Version", apiVersion);
    }

    /** A value inside single quotes of Stripe's search query language. */
    private static String quoted(String value) {
        return value.replace("\\", "\\\\").replace("'", "\\'");
    }

    /** The body as JSON, or {@code null} when there is none or it is not JSON. */
    private JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return json.readTree(body);
        } catch (JsonProcessingException unreadable) {
            return null;
        }
    }

    private String errorSummary(ProviderReply reply) {
        StripeError error = StripeError.read(parse(reply.body()));
        return error == null ? "" : " " + error;
    }
}
