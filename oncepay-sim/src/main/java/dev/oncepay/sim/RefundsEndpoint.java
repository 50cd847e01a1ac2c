package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * {@code POST /v1/refunds}, {@code GET /v1/refunds?reference=} and {@code GET /v1/refunds/{id}}:
 * the generic API's refunds, with the charges' faults applied in front of the business logic.
 */
final class RefundsEndpoint extends GenericEndpoint {

    static final String PATH = "/v1/refunds";
    private static final String BY_ID = PATH + "/";

    RefundsEndpoint(ObjectMapper json, SimulatedProvider provider, FaultControl faults, ChargeGate gate,
            Shutdown shutdown, RequestCounters counters) {
        super(json, provider, faults, gate, shutdown, counters);
    }

    @Override
    protected void serve(HttpExchange exchange) throws IOException, InterruptedException {
        String path = exchange.getRequestURI().getPath();
        if (path.startsWith(BY_ID) && path.length() > BY_ID.length()) {
            requireMethod(exchange, "GET");
            retrieve(exchange, path.substring(BY_ID.length()));
            return;
        }
        requirePath(exchange, PATH);
        requireMethod(exchange, "POST", "GET");
        if ("POST".equals(exchange.getRequestMethod())) {
            refund(exchange);
        } else {
            counters.genericRefundLookups.incrementAndGet();
            lookupByReference(exchange, (reference, lag) ->
                    provider.lookupRefunds(reference, lag).stream().map(refund -> refund.toJson(json)).toList());
        }
    }

    private void refund(HttpExchange exchange) throws IOException, InterruptedException {
        counters.genericRefunds.incrementAndGet();
        // As for charges: the whole request is read before any fault.
        byte[] raw = exchange.getRequestBody().readAllBytes();
        FaultPlan plan = faults.rollRefund();
        if (!passFaultsBeforeExecution(exchange, plan)) {
            return;
        }
        String key = idempotencyKey(exchange);
        JsonNode body = parseJson(raw);
        RefundParams request = RefundParams.parse(body);
        if (!gate.passThrough()) {
            exchange.close();
            return;
        }
        ChargeOutcome outcome = provider.refund(key, body, request, plan, faults.current().refundSettleMs());
        if (!holdAnswer(exchange, plan, outcome)) {
            return;
        }
        if (plan.emptyBodyStatus() != 0) {
            send(exchange, plan.emptyBodyStatus(), "");
        } else {
            send(exchange, outcome.status(), outcome.body());
        }
    }

    private void retrieve(HttpExchange exchange, String id) throws InterruptedException {
        counters.genericRefundLookups.incrementAndGet();
        if (passLookupFaults() == null) {
            return;
        }
        Refund refund = provider.refund(id)
                .orElseThrow(() -> new ApiError(404, "not_found", "no such refund: " + id));
        send(exchange, 200, refund.toJson(json));
    }
}
