package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Duration;
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

    /** A test's scripted refusal: nothing is executed, the status says why. */
    private static ApiError scriptedError(int status, Faults settings) {
        return switch (status) {
            case 429 -> new ApiError(429, "rate_limited", "scripted",
                    Map.of("Retry-After", Long.toString(settings.retryAfterSeconds())));
            case 402 -> new ApiError(402, "card_declined", "scripted decline");
            case 409 -> ApiError.keyInFlight("(scripted)");
            default -> status >= 500 ? ApiError.serverError(status, "api_error", "scripted", settings)
                    : new ApiError(status, "invalid_request", "scripted");
        };
    }

    private void charge(HttpExchange exchange) throws IOException, InterruptedException {
        counters.genericCharges.incrementAndGet();
        counters.chargeArrivals.add(java.time.Instant.now());
        // Read the whole request first: every fault below happens after the client finished
        // sending, which is exactly the case where the client cannot know what happened.
        byte[] raw = exchange.getRequestBody().readAllBytes();
        ScriptedAnswer scripted = counters.scriptedAnswers.poll();
        if (scripted != null && !scripted.executes()) {
            throw scriptedError(scripted.status(), faults.current());
        }
        FaultPlan plan = faults.roll();
        Faults settings = faults.current();
        if (plan.outage()) {
            throw outage(settings);
        }
        if (!shutdown.pause(plan.latencyMs())) {
            return; // closing: the exchange is dropped by JsonHandler
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
            return;
        }
        String key = idempotencyKey(exchange);
        JsonNode body = parseJson(raw);
        ChargeParams request = ChargeParams.parse(body);
        if (!gate.passThrough()) {
            exchange.close(); // closed while parked: never executed, nobody to answer
            return;
        }
        // A conflict commits the charge and answers 409 from inside (as if an earlier attempt
        // were still running and about to finish); a later request replays the stored answer.
        ChargeOutcome outcome = provider.charge(key, body, request, plan.decline(), plan.conflict());
        if (plan.commitThenTimeout() && !shutdown.pause(settings.commitThenTimeoutMs())) {
            exchange.close();
            return;
        }
        if (outcome.replayed()) {
            exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
        }
        if (scripted != null) {
            send(exchange, scripted.status(), scripted.body());
        } else if (plan.emptyBodyStatus() != 0) {
            send(exchange, plan.emptyBodyStatus(), "");
        } else if (plan.nonFinal()) {
            send(exchange, outcome.status(), processing(outcome.body()));
        } else {
            send(exchange, outcome.status(), outcome.body());
        }
    }

    /** The same charge, still {@code processing} as far as this answer tells (its real outcome is unchanged). */
    private JsonNode processing(String answer) throws IOException {
        ObjectNode charge = (ObjectNode) json.readTree(answer);
        charge.put("status", "processing");
        charge.remove("declineCode");
        return charge;
    }

    private void lookup(HttpExchange exchange) throws InterruptedException {
        counters.genericLookups.incrementAndGet();
        LookupPlan plan = faults.rollLookup();
        if (plan.outage()) {
            throw outage(faults.current());
        }
        if (!shutdown.pause(plan.latencyMs())) {
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
        provider.lookup(reference, Duration.ofMillis(plan.lagMs())).forEach(charge -> data.add(charge.toJson(json)));
        send(exchange, 200, root);
    }

    private static ApiError outage(Faults settings) {
        return ApiError.serverError(503, "outage", "the provider is unavailable", settings);
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
}
