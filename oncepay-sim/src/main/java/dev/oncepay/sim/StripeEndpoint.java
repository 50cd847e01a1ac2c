package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The Stripe API's steps shared by its endpoints, so PaymentIntents and refunds meet the same
 * authentication, headers and faults in the same order and shapes (oncepay-sim/README.md).
 */
abstract class StripeEndpoint extends JsonHandler {

    static final String STRIPE_VERSION = "Stripe-Version";
    /** The simulated account's default API version, older than any client pins: a request without one gets it. */
    static final String ACCOUNT_API_VERSION = "2024-06-20";
    private static final int MAX_KEY_LENGTH = 255;

    protected final FaultControl faults;
    protected final ChargeGate gate;
    protected final Shutdown shutdown;
    protected final RequestCounters counters;

    StripeEndpoint(ObjectMapper json, FaultControl faults, ChargeGate gate, Shutdown shutdown,
            RequestCounters counters) {
        super(json);
        this.faults = faults;
        this.gate = gate;
        this.shutdown = shutdown;
        this.counters = counters;
    }

    /** Every answer has a {@code Request-Id} and the API version used: the request's, else the account's default. */
    protected static void stripeHeaders(HttpExchange exchange) {
        exchange.getResponseHeaders().set("Request-Id", "req_" + RandomIds.next());
        String version = exchange.getRequestHeaders().getFirst(STRIPE_VERSION);
        exchange.getResponseHeaders().set(STRIPE_VERSION, version != null ? version : ACCOUNT_API_VERSION);
    }

    /**
     * The faults before execution, in Stripe's shapes: outage, latency (Stripe's own included),
     * rate limit, server error, reset.
     *
     * @return false when the exchange was dropped (a reset, or the simulator closing)
     * @throws ApiError the faulted answer; nothing was executed
     */
    protected boolean passFaultsBeforeExecution(HttpExchange exchange, FaultPlan plan) throws InterruptedException {
        Faults settings = faults.current();
        if (plan.outage()) {
            throw outage(settings);
        }
        if (!shutdown.pause(plan.latencyMs() + settings.stripeLatencyMs())) {
            return false;
        }
        if (plan.rateLimited()) {
            throw StripeErrors.rateLimited(settings);
        }
        if (plan.serverErrorStatus() != 0) {
            throw StripeErrors.apiError(plan.serverErrorStatus(), "An unknown error occurred (simulated).", settings);
        }
        if (plan.reset()) {
            exchange.close(); // no response headers: the JDK server drops the connection
            return false;
        }
        return true;
    }

    /**
     * Runs {@code action} with {@code key} claimed (a second request with it meanwhile gets
     * {@code 409} {@code idempotency_key_in_use}), after the gate lets it through.
     *
     * @return its outcome, or null when the exchange was closed while parked (nothing executed)
     */
    protected ChargeOutcome executeClaimed(HttpExchange exchange, StripeProvider provider, String key,
            Supplier<ChargeOutcome> action) throws InterruptedException {
        provider.claim(key);
        try {
            if (!gate.passThrough()) {
                exchange.close(); // closed while parked: never executed, nobody to answer
                return null;
            }
            return action.get();
        } finally {
            provider.release(key);
        }
    }

    /**
     * After execution: holds the answer back on commit-then-timeout.
     *
     * @return false when the exchange was dropped meanwhile (the client gave up, or the simulator is closing)
     */
    protected boolean holdAnswer(HttpExchange exchange, FaultPlan plan) throws InterruptedException {
        if (plan.commitThenTimeout() && !shutdown.pause(faults.current().commitThenTimeoutMs())) {
            exchange.close();
            return false;
        }
        return true;
    }

    /**
     * Checks the key, applies outage and latency (Stripe's own included) to a lookup; the caller
     * counts it first.
     *
     * @return false when the simulator is closing
     */
    protected boolean passLookupFaults(HttpExchange exchange, LookupPlan plan) throws InterruptedException {
        authorize(exchange);
        if (plan.outage()) {
            throw outage(faults.current());
        }
        return shutdown.pause(plan.latencyMs() + faults.current().stripeLatencyMs());
    }

    protected static ApiError outage(Faults settings) {
        return StripeErrors.apiError(503, "The Stripe API is temporarily unavailable (simulated outage).", settings);
    }

    /**
     * A test-mode secret key as a bearer token: any {@code sk_test_…} will do. The key stands for the
     * account: events about its PaymentIntents are signed with that account's secret, if one is set
     * ({@link StripeMode#setAccountWebhookSecret}).
     *
     * @return the key
     */
    protected static String authorize(HttpExchange exchange) {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization == null || authorization.isBlank()) {
            throw StripeErrors.unauthorized("You did not provide an API key. Provide it in the Authorization header, "
                    + "using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').");
        }
        if (!authorization.startsWith("Bearer sk_test_") || authorization.length() <= "Bearer sk_test_".length()) {
            throw StripeErrors.unauthorized("Invalid API Key provided (the simulator takes Bearer sk_test_…).");
        }
        return authorization.substring("Bearer ".length());
    }

    /** Required here (Stripe takes a POST without one): oncepay must send a key on every create. */
    protected static String idempotencyKey(HttpExchange exchange) {
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (key == null || key.isBlank()) {
            throw StripeErrors.invalidRequest(null, "The simulator requires an Idempotency-Key header on every POST.");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            throw StripeErrors.invalidRequest(null, "Idempotency-Key must be at most " + MAX_KEY_LENGTH
                    + " characters long.");
        }
        return key;
    }

    protected static void requireForm(HttpExchange exchange) {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            throw StripeErrors.invalidRequest(null, "Stripe takes application/x-www-form-urlencoded bodies, not " + type);
        }
    }

    /** @throws ApiError {@code parameter_unknown} for the first name not in {@code params} (nor metadata, if allowed) */
    protected static void known(StripeForm form, Set<String> params, boolean metadata) {
        for (String name : form.fields().keySet()) {
            boolean isMetadata = name.startsWith("metadata[") && name.endsWith("]");
            if (!params.contains(name) && !(metadata && isMetadata)) {
                throw StripeErrors.unknownParameter(name);
            }
        }
    }

    /** Marks a replay, and says {@code Stripe-Should-Retry: false} on a card error. */
    protected void answer(HttpExchange exchange, ChargeOutcome outcome) {
        markReplay(exchange, outcome);
        if (outcome.status() == 402) {
            exchange.getResponseHeaders().set(StripeErrors.SHOULD_RETRY, "false");
        }
        send(exchange, outcome.status(), outcome.body());
    }

    protected static void markReplay(HttpExchange exchange, ChargeOutcome outcome) {
        if (outcome.replayed()) {
            exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
        }
    }
}
