package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Stripe's Refunds API: {@code POST /v1/refunds} (form-encoded, by {@code payment_intent}),
 * {@code GET /v1/refunds/{id}} and {@code GET /v1/refunds?payment_intent=}, with the faults a
 * PaymentIntent create meets applied to creates (from the refunds' own dice) and the lookup
 * faults to lookups. It shares its path with the generic API's refunds: {@link #claims} tells
 * a Stripe request from a generic one.
 */
final class StripeRefundsEndpoint extends StripeEndpoint {

    private static final String PATH = RefundsEndpoint.PATH;
    private static final String BY_ID = PATH + "/";
    private static final int DEFAULT_LIMIT = 10;
    private static final int MAX_LIMIT = 100;

    private final StripeProvider provider;
    private final StripeRefunds refunds;

    StripeRefundsEndpoint(ObjectMapper json, StripeProvider provider, StripeRefunds refunds, FaultControl faults,
            ChargeGate gate, Shutdown shutdown, RequestCounters counters) {
        super(json, faults, gate, shutdown, counters);
        this.provider = provider;
        this.refunds = refunds;
    }

    /**
     * Whether a request to {@code /v1/refunds…} is Stripe's: a form body, a {@code payment_intent}
     * filter, the id of a Stripe refund, or a {@code Stripe-Version} header (which Stripe's clients
     * and oncepay's adapter always send). Everything else is the generic API's.
     */
    boolean claims(HttpExchange exchange) {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        String path = exchange.getRequestURI().getPath();
        return (type != null && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded"))
                || queryParameter(exchange, "payment_intent") != null
                || exchange.getRequestHeaders().getFirst(STRIPE_VERSION) != null
                || (path.startsWith(BY_ID) && refunds.retrieve(path.substring(BY_ID.length())).isPresent());
    }

    @Override
    protected void serve(HttpExchange exchange) throws IOException, InterruptedException {
        stripeHeaders(exchange);
        String path = exchange.getRequestURI().getPath();
        if (PATH.equals(path)) {
            requireMethod(exchange, "POST", "GET");
            if ("POST".equals(exchange.getRequestMethod())) {
                create(exchange);
            } else {
                list(exchange);
            }
        } else if (path.startsWith(BY_ID) && path.indexOf('/', BY_ID.length()) < 0) {
            requireMethod(exchange, "GET");
            retrieve(exchange, path.substring(BY_ID.length()));
        } else {
            throw StripeErrors.resourceMissing(404, null, "Unrecognized request URL (" + exchange.getRequestMethod()
                    + ": " + path + ").");
        }
    }

    private void create(HttpExchange exchange) throws IOException, InterruptedException {
        counters.stripeRefunds.incrementAndGet();
        // As for PaymentIntents: the whole request is read before any fault.
        String raw = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        authorize(exchange);
        FaultPlan plan = faults.rollRefund();
        if (!passFaultsBeforeExecution(exchange, plan)) {
            return;
        }
        String key = idempotencyKey(exchange);
        requireForm(exchange);
        StripeForm form = StripeForm.parse(raw);
        StripeRefundParams params = StripeRefundParams.parse(form);
        long settleMs = faults.current().refundSettleMs();
        ChargeOutcome outcome = executeClaimed(exchange, provider, key,
                () -> refunds.create(key, form, params, plan, settleMs));
        if (outcome == null) {
            return;
        }
        if (plan.conflict() && !outcome.replayed()) {
            throw StripeErrors.keyInFlight(key); // executed and stored, as when an earlier answer was lost
        }
        if (!holdAnswer(exchange, plan)) {
            return;
        }
        markReplay(exchange, outcome);
        if (plan.emptyBodyStatus() != 0) {
            send(exchange, plan.emptyBodyStatus(), "");
        } else {
            answer(exchange, outcome);
        }
    }

    /** The refund as it stands now: a retrieve by id does not lag. */
    private void retrieve(HttpExchange exchange, String id) throws InterruptedException {
        counters.stripeRefundLookups.incrementAndGet();
        if (!passLookupFaults(exchange, faults.rollLookup())) {
            return;
        }
        StripeRefund refund = refunds.retrieve(id)
                .orElseThrow(() -> StripeErrors.resourceMissing(404, "id", "No such refund: '" + id + "'"));
        send(exchange, 200, refund.toJson(json));
    }

    /** Stripe's list object, newest first; a refund appears only {@code lookupLagMs} after its creation. */
    private void list(HttpExchange exchange) throws InterruptedException {
        counters.stripeRefundLookups.incrementAndGet();
        LookupPlan plan = faults.rollLookup();
        if (!passLookupFaults(exchange, plan)) {
            return;
        }
        String intent = queryParameter(exchange, "payment_intent");
        if (intent == null || intent.isEmpty()) {
            throw StripeErrors.parameterMissing("payment_intent");
        }
        int limit = limit(queryParameter(exchange, "limit"));
        if (provider.retrieve(intent).isEmpty()) {
            throw StripeErrors.resourceMissing(404, "payment_intent", "No such payment_intent: '" + intent + "'");
        }
        if (plan.malformedBody() != null) {
            send(exchange, 200, plan.malformedBody());
            return;
        }
        List<StripeRefund> found = refunds.ofPaymentIntent(intent, Duration.ofMillis(plan.lagMs()));
        ObjectNode root = json.createObjectNode();
        root.put("object", "list");
        ArrayNode data = root.putArray("data");
        found.stream().limit(limit).forEach(refund -> data.add(refund.toJson(json)));
        root.put("has_more", found.size() > limit);
        root.put("url", PATH);
        send(exchange, 200, root);
    }

    private static int limit(String value) {
        if (value == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= MAX_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException notANumber) {
            // answered below
        }
        throw StripeErrors.parameterInvalid("parameter_invalid_integer", "limit",
                "Invalid integer: " + value + " (limit must be between 1 and " + MAX_LIMIT + ")");
    }
}
