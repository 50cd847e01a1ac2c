package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.Map;

/**
 * {@code POST /v1/charges} and {@code GET /v1/charges?reference=}: the provider API oncepay calls,
 * with the configured faults applied in front of the business logic.
 */
final class ChargesEndpoint extends GenericEndpoint {

    static final String PATH = "/v1/charges";

    ChargesEndpoint(ObjectMapper json, SimulatedProvider provider, FaultControl faults, ChargeGate gate,
            Shutdown shutdown, RequestCounters counters) {
        super(json, provider, faults, gate, shutdown, counters);
    }

    @Override
    protected void serve(HttpExchange exchange) throws IOException, InterruptedException {
        requirePath(exchange, PATH);
        requireMethod(exchange, "POST", "GET");
        if ("POST".equals(exchange.getRequestMethod())) {
            charge(exchange);
        } else {
            counters.genericLookups.incrementAndGet();
            lookupByReference(exchange, (reference, lag) ->
                    provider.lookup(reference, lag).stream().map(charge -> charge.toJson(json)).toList());
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
        if (!passFaultsBeforeExecution(exchange, plan)) {
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
        if (!holdAnswer(exchange, plan, outcome)) {
            return;
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
}
