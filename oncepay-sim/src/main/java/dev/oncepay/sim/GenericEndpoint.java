package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The generic API's fault steps, shared by its endpoints so charges and refunds meet the same
 * faults in the same order (oncepay-sim/README.md).
 */
abstract class GenericEndpoint extends JsonHandler {

    private static final int MAX_KEY_LENGTH = 255;

    protected final SimulatedProvider provider;
    protected final FaultControl faults;
    protected final ChargeGate gate;
    protected final Shutdown shutdown;
    protected final RequestCounters counters;

    GenericEndpoint(ObjectMapper json, SimulatedProvider provider, FaultControl faults, ChargeGate gate,
            Shutdown shutdown, RequestCounters counters) {
        super(json);
        this.provider = provider;
        this.faults = faults;
        this.gate = gate;
        this.shutdown = shutdown;
        this.counters = counters;
    }

    /**
     * The faults before execution: outage, latency, rate limit, server error, reset.
     *
     * @return false when the exchange was dropped (a reset, or the simulator closing)
     * @throws ApiError the faulted answer; nothing was executed
     */
    protected boolean passFaultsBeforeExecution(HttpExchange exchange, FaultPlan plan) throws InterruptedException {
        Faults settings = faults.current();
        if (plan.outage()) {
            throw outage(settings);
        }
        if (!shutdown.pause(plan.latencyMs())) {
            return false; // closing: the exchange is dropped by JsonHandler
        }
        if (plan.rateLimited()) {
            throw new ApiError(429, "rate_limited", "too many requests",
                    Map.of("Retry-After", Long.toString(settings.retryAfterSeconds())));
        }
        if (plan.serverErrorStatus() != 0) {
            throw ApiError.serverError(plan.serverErrorStatus(), "api_error", "simulated server error", settings);
        }
        if (plan.reset()) {
            // Closing without response headers makes the JDK server drop the TCP connection: the
            // client sees the connection end with no response bytes at all.
            exchange.close();
            return false;
        }
        return true;
    }

    /**
     * After execution: holds the answer back on commit-then-timeout and marks a replay.
     *
     * @return false when the exchange was dropped meanwhile (the simulator closing)
     */
    protected boolean holdAnswer(HttpExchange exchange, FaultPlan plan, ChargeOutcome outcome)
            throws InterruptedException {
        if (plan.commitThenTimeout() && !shutdown.pause(faults.current().commitThenTimeoutMs())) {
            exchange.close();
            return false;
        }
        if (outcome.replayed()) {
            exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
        }
        return true;
    }

    /**
     * A lookup by {@code ?reference=} with the lookups' faults: outage, latency, lag and malformed
     * answers.
     *
     * @param find the objects of a reference visible after the given lag, in their public shape
     */
    protected void lookupByReference(HttpExchange exchange, BiFunction<String, Duration, List<ObjectNode>> find)
            throws InterruptedException {
        LookupPlan plan = passLookupFaults();
        if (plan == null) {
            return;
        }
        String reference = queryParameter(exchange, "reference");
        if (reference == null || reference.isEmpty()) {
            throw ApiError.invalidRequest("query parameter reference is required");
        }
        if (plan.malformedBody() != null) {
            send(exchange, 200, plan.malformedBody());
            return;
        }
        ObjectNode root = json.createObjectNode();
        root.put("object", "list");
        ArrayNode data = root.putArray("data");
        find.apply(reference, Duration.ofMillis(plan.lagMs())).forEach(data::add);
        send(exchange, 200, root);
    }

    /**
     * The faults every lookup meets: outage and latency.
     *
     * @return the lookup's plan, or null when the simulator is closing (the exchange is dropped)
     */
    protected LookupPlan passLookupFaults() throws InterruptedException {
        LookupPlan plan = faults.rollLookup();
        if (plan.outage()) {
            throw outage(faults.current());
        }
        return shutdown.pause(plan.latencyMs()) ? plan : null;
    }

    protected static String idempotencyKey(HttpExchange exchange) {
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (key == null || key.isBlank()) {
            throw ApiError.invalidRequest("the Idempotency-Key header is required");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            throw ApiError.invalidRequest("Idempotency-Key must be at most " + MAX_KEY_LENGTH + " characters");
        }
        return key;
    }

    protected static ApiError outage(Faults settings) {
        return ApiError.serverError(503, "outage", "the provider is unavailable", settings);
    }
}
