package dev.oncepay.provider.stripe;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Stripe's error answer, {@code {"error":{"type","code","decline_code","payment_intent",…}}}.
 *
 * @param code the error's {@code code}, e.g. {@code card_declined}, {@code resource_missing}
 * @param failureCode {@code decline_code}, else {@code code}, else {@code type}
 * @param paymentIntent the error's {@code payment_intent} object (card errors carry it), or {@code null}
 */
record StripeError(String type, String code, String failureCode, JsonNode paymentIntent) {

    static final String CARD_ERROR = "card_error";
    static final String INVALID_REQUEST_ERROR = "invalid_request_error";
    static final String IDEMPOTENCY_ERROR = "idempotency_error";
    /** The PaymentIntent's status does not allow the request (e.g. a cancel of a succeeded one); the error carries it. */
    static final String UNEXPECTED_STATE = "payment_intent_unexpected_state";

    /** The error {@code root} carries, or {@code null} when it is no Stripe error with a {@code type}. */
    static StripeError read(JsonNode root) {
        JsonNode error = root == null ? null : root.get("error");
        if (error == null || !error.isObject()) {
            return null;
        }
        String type = StripePaymentIntent.text(error, "type");
        if (type == null) {
            return null;
        }
        JsonNode intent = error.get("payment_intent");
        return new StripeError(type, StripePaymentIntent.text(error, "code"), StripePaymentIntent.failureCode(error),
                intent != null && intent.isObject() ? intent : null);
    }

    @Override
    public String toString() {
        return code == null ? type : type + "/" + code;
    }
}
