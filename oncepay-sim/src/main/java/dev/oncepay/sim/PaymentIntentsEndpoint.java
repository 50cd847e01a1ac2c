package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Stripe's PaymentIntents API: {@code POST /v1/payment_intents} (form-encoded, create and
 * confirm), {@code POST /v1/payment_intents/{id}/cancel}, {@code POST /v1/payment_intents/{id}/confirm}
 * (also as Stripe.js sends it: a publishable key and the client secret),
 * {@code GET /v1/payment_intents/{id}} and {@code GET /v1/payment_intents/search}, with the
 * simulator's faults applied in front of the business logic in Stripe's shapes.
 */
final class PaymentIntentsEndpoint extends StripeEndpoint {

    static final String PATH = "/v1/payment_intents";
    private static final String SEARCH_PATH = PATH + "/search";
    /** The one search oncepay needs: by our payment id, single or double quotes as Stripe allows. */
    private static final Pattern BY_REFERENCE = Pattern.compile(
            "\\s*metadata\\[(['\"])" + PaymentIntent.REFERENCE_KEY + "\\1\\]\\s*:\\s*(['\"])([^'\"]+)\\2\\s*");
    private static final Pattern INTENT_ID = Pattern.compile("pi_[A-Za-z0-9]+");
    /** {@code /v1/payment_intents/{id}/cancel} and {@code …/confirm}. */
    private static final Pattern INTENT_ACTION = Pattern.compile(PATH + "/(pi_[A-Za-z0-9]+)/(cancel|confirm)");
    private static final Set<String> CANCEL_PARAMS = Set.of("cancellation_reason", "expand[0]");
    private static final Set<String> CANCELLATION_REASONS = Set.of("duplicate", "fraudulent", "requested_by_customer",
            "abandoned");
    private static final Set<String> CONFIRM_PARAMS = Set.of("payment_method", "client_secret", "return_url",
            "expand[0]", "off_session");

    private final StripeProvider provider;

    PaymentIntentsEndpoint(ObjectMapper json, StripeProvider provider, FaultControl faults, ChargeGate gate,
            Shutdown shutdown, RequestCounters counters) {
        super(json, faults, gate, shutdown, counters);
        this.provider = provider;
    }

    @Override
    protected void serve(HttpExchange exchange) throws IOException, InterruptedException {
        stripeHeaders(exchange);
        String path = exchange.getRequestURI().getPath();
        Matcher action = INTENT_ACTION.matcher(path);
        if (action.matches()) {
            requireMethod(exchange, "POST");
            if (action.group(2).equals("cancel")) {
                cancel(exchange, action.group(1));
            } else {
                confirm(exchange, action.group(1));
            }
        } else if (PATH.equals(path)) {
            requireMethod(exchange, "POST");
            create(exchange);
        } else if (SEARCH_PATH.equals(path)) {
            requireMethod(exchange, "GET");
            search(exchange);
        } else if (path.startsWith(PATH + "/") && path.indexOf('/', PATH.length() + 1) < 0) {
            requireMethod(exchange, "GET");
            retrieve(exchange, path.substring(PATH.length() + 1));
        } else {
            throw StripeErrors.resourceMissing(404, null, "Unrecognized request URL (" + exchange.getRequestMethod()
                    + ": " + path + ").");
        }
    }

    private void create(HttpExchange exchange) throws IOException, InterruptedException {
        counters.stripeCharges.incrementAndGet();
        counters.chargeArrivals.add(Instant.now());
        // Read the whole request first: every fault below happens after the client finished sending.
        String raw = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String apiKey = authorize(exchange);
        ScriptedAnswer scripted = counters.scriptedAnswers.poll();
        if (scripted != null && !scripted.executes()) {
            throw StripeErrors.scripted(scripted.status(), faults.current());
        }
        StripeScriptedError scriptedError = provider.nextScriptedError();
        if (scriptedError != null && !scriptedError.executes()) {
            throw scriptedError.error();
        }
        FaultPlan plan = faults.roll();
        if (!passFaultsBeforeExecution(exchange, plan)) {
            return;
        }
        String key = idempotencyKey(exchange);
        requireForm(exchange);
        StripeForm form = StripeForm.parse(raw);
        PaymentIntentParams params = PaymentIntentParams.parse(form);
        ChargeOutcome outcome = executeClaimed(exchange, provider, key,
                () -> provider.create(key, form, params, plan.decline(), plan.conflict(), apiKey));
        if (outcome == null || !holdAnswer(exchange, plan)) {
            return;
        }
        if (scriptedError != null) {
            throw scriptedError.error();
        }
        markReplay(exchange, outcome);
        if (scripted != null) {
            send(exchange, scripted.status(), scripted.body());
        } else if (plan.emptyBodyStatus() != 0) {
            send(exchange, plan.emptyBodyStatus(), "");
        } else if (plan.nonFinal()) {
            send(exchange, 200, processing(outcome.body()));
        } else {
            answer(exchange, outcome);
        }
    }

    /**
     * Cancels a PaymentIntent (Stripe's statuses and errors: {@link StripeProvider#cancel}). Outage,
     * latency and a test's scripted cancel errors apply; an {@code Idempotency-Key} is required here
     * as on every POST oncepay makes.
     */
    private void cancel(HttpExchange exchange, String id) throws IOException, InterruptedException {
        counters.stripeCancels.incrementAndGet();
        String raw = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        authorize(exchange);
        StripeScriptedError scripted = provider.nextScriptedCancelError();
        if (scripted != null && !scripted.executes()) {
            throw scripted.error();
        }
        FaultPlan plan = faults.roll();
        if (plan.outage()) {
            throw outage(faults.current());
        }
        if (!shutdown.pause(plan.latencyMs() + faults.current().stripeLatencyMs())) {
            return;
        }
        String key = idempotencyKey(exchange);
        requireForm(exchange);
        StripeForm form = StripeForm.parse(raw);
        known(form, CANCEL_PARAMS, false);
        String reason = form.get("cancellation_reason");
        if (reason != null && !CANCELLATION_REASONS.contains(reason)) {
            throw StripeErrors.parameterInvalid("parameter_invalid_string", "cancellation_reason",
                    "Invalid cancellation_reason: must be one of abandoned, duplicate, fraudulent or requested_by_customer");
        }
        ChargeOutcome outcome = provider.cancel(key, id, form, reason);
        if (scripted != null) {
            throw scripted.error();
        }
        answer(exchange, outcome);
    }

    /**
     * Confirms a PaymentIntent again, as the customer's browser does with the client secret after
     * a failed attempt (a publishable key {@code pk_test_…} and {@code client_secret}), or the
     * merchant's server with its secret key. Not subject to faults: the customer's side.
     */
    private void confirm(HttpExchange exchange, String id) throws IOException {
        counters.stripeConfirms.incrementAndGet();
        String raw = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        boolean publishable = authorization != null && authorization.startsWith("Bearer pk_test_")
                && authorization.length() > "Bearer pk_test_".length();
        if (!publishable) {
            authorize(exchange);
        }
        requireForm(exchange);
        StripeForm form = StripeForm.parse(raw);
        known(form, CONFIRM_PARAMS, false);
        String clientSecret = form.get("client_secret");
        if (publishable && (clientSecret == null || clientSecret.isEmpty())) {
            throw StripeErrors.parameterMissing("client_secret");
        }
        String method = form.get("payment_method");
        StripeTestPaymentMethod card = method == null ? null : StripeTestPaymentMethod.byId(method)
                .orElseThrow(() -> StripeErrors.resourceMissing(400, "payment_method",
                        "No such PaymentMethod: '" + method + "'"));
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        answer(exchange, provider.confirm(key == null || key.isBlank() ? null : key, id, form, card, clientSecret,
                !publishable));
    }

    /**
     * The same PaymentIntent, still {@code processing} as far as this {@code 200} tells (its real
     * outcome is unchanged); from a card error's body its {@code payment_intent}.
     */
    private JsonNode processing(String answer) throws IOException {
        JsonNode root = json.readTree(answer);
        ObjectNode intent = (ObjectNode) (root.has("error") ? root.get("error").get("payment_intent") : root);
        intent.put("status", PaymentIntentStatus.PROCESSING.wire());
        intent.putNull("last_payment_error");
        intent.putNull("next_action");
        return intent;
    }

    private void retrieve(HttpExchange exchange, String id) throws InterruptedException {
        if (!beginLookup(exchange)) {
            return;
        }
        Optional<PaymentIntent> found = INTENT_ID.matcher(id).matches() ? provider.retrieve(id) : Optional.empty();
        PaymentIntent intent = found.orElseThrow(() -> StripeErrors.resourceMissing(404, "intent", "No such payment_intent: '" + id + "'"));
        send(exchange, 200, intent.toJson(json));
    }

    private void search(HttpExchange exchange) throws InterruptedException {
        LookupPlan plan = faults.rollLookup();
        if (!beginLookup(exchange, plan)) {
            return;
        }
        String query = queryParameter(exchange, "query");
        if (query == null || query.isEmpty()) {
            throw StripeErrors.parameterMissing("query");
        }
        Matcher byReference = BY_REFERENCE.matcher(query);
        if (!byReference.matches()) {
            throw StripeErrors.invalidRequest("query", "The simulator searches only by metadata['"
                    + PaymentIntent.REFERENCE_KEY + "']:'<payment id>', not: " + query);
        }
        if (plan.malformedBody() != null) {
            // The same shapes as the generic lookup's, named as Stripe's search result.
            send(exchange, 200, plan.malformedBody().replace("\"list\"", "\"search_result\""));
            return;
        }
        ObjectNode root = json.createObjectNode();
        root.put("object", "search_result");
        ArrayNode data = root.putArray("data");
        provider.search(byReference.group(3), Duration.ofMillis(plan.lagMs()))
                .forEach(intent -> data.add(intent.toJson(json)));
        root.put("has_more", false);
        root.putNull("next_page");
        root.put("url", SEARCH_PATH);
        send(exchange, 200, root);
    }

    private boolean beginLookup(HttpExchange exchange) throws InterruptedException {
        return beginLookup(exchange, faults.rollLookup());
    }

    /** Counts the lookup, checks the key, applies outage and latency (Stripe's own included); false when closing. */
    private boolean beginLookup(HttpExchange exchange, LookupPlan plan) throws InterruptedException {
        counters.stripeLookups.incrementAndGet();
        return passLookupFaults(exchange, plan);
    }
}
