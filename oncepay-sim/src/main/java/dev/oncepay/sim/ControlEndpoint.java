package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * The simulator-only API under {@code /_sim/}: the ledger (the oracle for "no double charge" and "no over-refund"),
 * the request counts, fault settings and reset. Never subject to faults, so tests can always steer and inspect.
 */
final class ControlEndpoint extends JsonHandler {

    static final String PATH = "/_sim/";

    private final Ledger ledger;
    private final FaultControl faults;
    private final RequestCounters counters;
    private final Runnable reset;

    ControlEndpoint(ObjectMapper json, Ledger ledger, FaultControl faults, RequestCounters counters, Runnable reset) {
        super(json);
        this.ledger = ledger;
        this.faults = faults;
        this.counters = counters;
        this.reset = reset;
    }

    @Override
    protected void serve(HttpExchange exchange) throws IOException {
        switch (exchange.getRequestURI().getPath()) {
            case "/_sim/ledger" -> {
                requireMethod(exchange, "GET");
                ObjectNode root = json.createObjectNode();
                ArrayNode charges = root.putArray("charges");
                ledger.all().forEach(charge -> charges.add(charge.toLedgerEntry().toJson(json)));
                ArrayNode refunds = root.putArray("refunds");
                ledger.refunds().forEach(refund -> refunds.add(refund.toLedgerJson(json)));
                send(exchange, 200, root);
            }
            case "/_sim/stats" -> {
                requireMethod(exchange, "GET");
                send(exchange, 200, counters.toJson(json));
            }
            case "/_sim/faults" -> {
                requireMethod(exchange, "GET", "POST");
                if ("POST".equals(exchange.getRequestMethod())) {
                    try {
                        faults.merge(readJson(exchange), json);
                    } catch (IllegalArgumentException e) {
                        throw ApiError.invalidRequest(e.getMessage());
                    }
                }
                send(exchange, 200, faults.current().toJson(json));
            }
            case "/_sim/reset" -> {
                requireMethod(exchange, "POST");
                reset.run();
                send(exchange, 200, json.createObjectNode().put("reset", true));
            }
            default -> throw new ApiError(404, "not_found", "no such endpoint: " + exchange.getRequestURI().getPath());
        }
    }
}
