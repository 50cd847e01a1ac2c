package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * The customer's side of Stripe over HTTP, for processes that cannot call {@link StripeMode}
 * (the local run, the drill): {@code POST /_sim/stripe/authenticate} with
 * {@code {"reference":"pay_…","approved":true}} finishes (or fails) 3-D Secure for the latest
 * PaymentIntent of that oncepay payment, as Stripe.js would after {@code next_action}: it succeeds
 * (a charge in the ledger) or fails, and its event is sent. {@code 404} when the payment has no
 * PaymentIntent (yet), {@code 409} when it is not waiting for authentication. Never subject to faults.
 */
public final class StripeCustomerEndpoint extends JsonHandler {

    public static final String PATH = "/_sim/stripe/authenticate";

    private final StripeMode stripe;

    StripeCustomerEndpoint(ObjectMapper json, StripeMode stripe) {
        super(json);
        this.stripe = stripe;
    }

    @Override
    protected void serve(HttpExchange exchange) throws IOException {
        requirePath(exchange, PATH);
        requireMethod(exchange, "POST");
        JsonNode body = readJson(exchange);
        JsonNode reference = body.get("reference");
        JsonNode approved = body.get("approved");
        if (reference == null || !reference.isTextual() || reference.asText().isBlank()) {
            throw ApiError.invalidRequest("reference (the oncepay payment id) is required");
        }
        if (approved == null || !approved.isBoolean()) {
            throw ApiError.invalidRequest("approved (true or false) is required");
        }
        String id = stripe.paymentIntentId(reference.asText()).orElseThrow(() -> new ApiError(404, "not_found",
                "no PaymentIntent for reference " + reference.asText()));
        try {
            stripe.authenticate(id, approved.asBoolean());
        } catch (IllegalStateException notWaiting) {
            throw new ApiError(409, "conflict", notWaiting.getMessage());
        }
        send(exchange, 200, json.createObjectNode().put("paymentIntent", id).put("approved", approved.asBoolean()));
    }
}
