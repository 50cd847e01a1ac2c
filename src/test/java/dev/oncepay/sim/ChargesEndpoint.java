package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * {@code POST /v1/charges} and {@code GET /v1/charges?reference=}: the provider API oncepay calls,
 * with the configured faults applied in front of the business logic.
 */
final class ChargesEndpoint extends JsonHandler {

    static final String PATH = "/v1/charges";
    private static final int MAX_KEY_LENGTH = 255;

    private final SimulatedProvider provider;
    private final FaultControl faults;
    private final ChargeGate gate;
    private final Shutdown shutdown;
    private final RequestCounters counters;

    ChargesEndpoint(ObjectMapper json, SimulatedProvider provider, FaultControl faults, ChargeGate gate,
            Shutdown shutdown, RequestCounters counters) {
        super(json);
        this.provider = provider;
        this.faults = faults;
        this.gate = gate;
        this.shutdown = shutdown;
        this.counters = counters;
    }

    @Override
    protected void serve(HttpExchange exchange) throws IOException, InterruptedException {
        requirePath(exchange, PATH);
        requireMethod(exchange, "POST", "GET");
        if ("POST".equals(exchange.getRequestMethod())) {
            charge(exchange);
        } else {
            lookup(exchange);
        }
    }

    /** A test's scripted answer: nothing is executed, the status says why. */
    private static ApiError scriptedError(int status, Faults settings) {
        return switch (status) {
            case 429 -> new ApiError(429, "rate_limited", "scripted",
                    Map.of("Retry-After", Long.toString(settings.retryAfterSeconds())));
            case 402 -> new ApiError(402, "card_declined", "scripted decline");
            default -> new ApiError(status, status >= 500 ? "api_error" : "invalid_request", "scripted");
        };
    }

    private void charge(HttpExchange exchange) throws IOException, InterruptedException {
        counters.charges.incrementAndGet();
        counters.chargeArrivals.add(java.time.Instant.now());
        // Read the whole request first: every fault below happens after the client finished
        // sending, which is exactly the case where the client cannot know what happened.
        byte[] raw = exchange.getRequestBody().readAllBytes();
        Integer scripted = counters.scriptedStatuses.poll();
        if (scripted != null) {
            throw scriptedError(scripted, faults.current());
        }
        FaultPlan plan = faults.roll();
        Faults settings = faults.current();
        if (plan.outage()) {
            throw outage();
        }
        if (!shutdown.pause(plan.latencyMs())) {
            return; // closing: the exchange is dropped by JsonHandler
        }
        if (plan.rateLimited()) {
            throw new ApiError(429, "rate_limited", "too many requests",
                    Map.of("Retry-After", Long.toString(settings.retryAfterSeconds())));
        }
        if (plan.serverErrorStatus() != 0) {
            throw new ApiError(plan.serverErrorStatus(), "api_error", "simulated server error");
        }
        if (plan.reset()) {
            // Closing without response headers makes the JDK server drop the TCP connection: the
            // client sees the connection end with no response bytes at all.
            exchange.close();
            return;
        }
        String key = idempotencyKey(exchange);
        JsonNode body = parseJson(raw);
        ChargeParams request = ChargeParams.parse(body);
        if (!gate.passThrough()) {
            exchange.close(); // closed while parked: never executed, nobody to answer
            return;
        }
        ChargeOutcome outcome = provider.charge(key, body, request, plan.decline());
        if (plan.commitThenTimeout() && !shutdown.pause(settings.commitThenTimeoutMs())) {
            exchange.close();
            return;
        }
        if (outcome.replayed()) {
            exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
        }
        send(exchange, outcome.status(), outcome.body());
    }

    private void lookup(HttpExchange exchange) throws InterruptedException {
        counters.lookups.incrementAndGet();
        Faults settings = faults.current();
        if (settings.outage()) {
            throw outage();
        }
        if (!shutdown.pause(settings.latencyMs())) {
            return;
        }
        String reference = queryParameter(exchange, "reference");
        if (reference == null || reference.isEmpty()) {
            throw ApiError.invalidRequest("query parameter reference is required");
        }
        ObjectNode root = json.createObjectNode();
        ArrayNode data = root.putArray("data");
        provider.lookup(reference).forEach(charge -> data.add(charge.toJson(json)));
        send(exchange, 200, root);
    }

    private static ApiError outage() {
        return new ApiError(503, "outage", "the provider is unavailable");
    }

    private static String idempotencyKey(HttpExchange exchange) {
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (key == null || key.isBlank()) {
            throw ApiError.invalidRequest("the Idempotency-Key header is required");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            throw ApiError.invalidRequest("Idempotency-Key must be at most " + MAX_KEY_LENGTH + " characters");
        }
        return key;
    }

    private static String queryParameter(HttpExchange exchange, String name) {
        String query = exchange.getRequestURI().getRawQuery();
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            if (key.equals(name)) {
                return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
