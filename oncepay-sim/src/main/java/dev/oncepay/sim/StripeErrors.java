package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.Currency;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Stripe's error answers, {@code {"error":{"type","code","decline_code","message","param",…}}},
 * with {@code Stripe-Should-Retry} where Stripe sends it: {@code true} on {@code 5xx} and on a
 * {@code 409} for a key still in flight, {@code false} on card errors and idempotency errors.
 */
final class StripeErrors {

    static final String SHOULD_RETRY = "Stripe-Should-Retry";
    private static final ObjectMapper JSON = new ObjectMapper();

    private StripeErrors() {
    }

    static ApiError invalidRequest(String param, String message) {
        return error(400, "invalid_request_error", null, param, message, Map.of());
    }

    static ApiError parameterMissing(String param) {
        return error(400, "invalid_request_error", "parameter_missing", param,
                "Missing required param: " + param + ".", Map.of());
    }

    /** @param code e.g. {@code parameter_invalid_integer}, {@code parameter_invalid_empty}, {@code invalid_currency} */
    static ApiError parameterInvalid(String code, String param, String message) {
        return error(400, "invalid_request_error", code, param, message, Map.of());
    }

    static ApiError unknownParameter(String param) {
        return error(400, "invalid_request_error", "parameter_unknown", param,
                "Received unknown parameter: " + param, Map.of());
    }

    /** {@code 400}/{@code 404} {@code resource_missing}: e.g. an unknown payment method or PaymentIntent. */
    static ApiError resourceMissing(int status, String param, String message) {
        return error(status, "invalid_request_error", "resource_missing", param, message, Map.of());
    }

    static ApiError unauthorized(String message) {
        return error(401, "invalid_request_error", null, null, message, Map.of());
    }

    /** Same key, other parameters: our own bug or tampering, never retried. */
    static ApiError idempotencyMismatch(String key) {
        return error(400, "idempotency_error", null, null,
                "Keys for idempotent requests can only be used with the same parameters they were first used with. "
                        + "Try using a key other than '" + key + "' if you meant to execute a different request.",
                Map.of(SHOULD_RETRY, "false"));
    }

    /** {@code 409}: another request with this key is still being processed; retrying later is safe. */
    static ApiError keyInFlight(String key) {
        return error(409, "invalid_request_error", "idempotency_key_in_use", null,
                "There is currently another in-progress request using this Idempotent Key (that probably means "
                        + "you submitted twice, and the other request is still going through): " + key
                        + ". Please try again later.",
                Map.of(SHOULD_RETRY, "true"));
    }

    static ApiError rateLimited(Faults settings) {
        return error(429, "rate_limit_error", "rate_limit",
                null, "Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.",
                Map.of("Retry-After", Long.toString(settings.retryAfterSeconds())));
    }

    /** A {@code 5xx} {@code api_error}, retryable, with {@code Retry-After} when the faults ask for one. */
    static ApiError apiError(int status, String message, Faults settings) {
        Map<String, String> headers = new HashMap<>();
        headers.put(SHOULD_RETRY, "true");
        if (settings.serverErrorRetryAfterSeconds() > 0) {
            headers.put("Retry-After", Long.toString(settings.serverErrorRetryAfterSeconds()));
        }
        return error(status, "api_error", null, null, message, headers);
    }

    /**
     * {@code 402} {@code card_error} {@code card_declined}: the attempt failed, the PaymentIntent
     * (included, as Stripe does) is back at {@code requires_payment_method}.
     */
    static ApiError cardDeclined(PaymentIntent intent, ObjectMapper json) {
        ObjectNode details = details("card_declined", null);
        details.put("decline_code", intent.lastPaymentError().declineCode());
        details.put("charge", intent.latestCharge());
        details.set("payment_intent", intent.toJson(json));
        return new ApiError(402, "card_error", intent.lastPaymentError().message(),
                Map.of(SHOULD_RETRY, "false"), details);
    }

    /**
     * {@code 400} {@code payment_intent_unexpected_state}: {@code action} ({@code cancel},
     * {@code confirm}) is not allowed in the PaymentIntent's status; the error carries the
     * PaymentIntent, as Stripe's does.
     */
    static ApiError unexpectedState(String action, PaymentIntent intent, java.util.Set<PaymentIntentStatus> allowed,
            ObjectMapper json) {
        ObjectNode details = details("payment_intent_unexpected_state", null);
        details.set("payment_intent", intent.toJson(json));
        String statuses = String.join(", ", allowed.stream().map(PaymentIntentStatus::wire).sorted().toList());
        return new ApiError(400, "invalid_request_error", "You cannot " + action + " this PaymentIntent because it has a"
                + " status of " + intent.status().wire() + ". Only a PaymentIntent with one of the following statuses"
                + " may be " + (action.equals("cancel") ? "canceled" : "confirmed") + ": " + statuses + ".",
                Map.of(), details);
    }

    /**
     * {@code 400} {@code payment_intent_unexpected_state}: a refund of a PaymentIntent that has no
     * succeeded charge; the error carries the PaymentIntent, as the other state errors do.
     */
    static ApiError nothingToRefund(PaymentIntent intent, ObjectMapper json) {
        ObjectNode details = details("payment_intent_unexpected_state", "payment_intent");
        details.set("payment_intent", intent.toJson(json));
        return new ApiError(400, "invalid_request_error", "This PaymentIntent (" + intent.id() + ") does not have a"
                + " successful charge to refund. Its status is " + intent.status().wire() + ".", Map.of(), details);
    }

    /** {@code 400} {@code charge_already_refunded}: nothing is left of the charge (pending refunds hold theirs). */
    static ApiError chargeAlreadyRefunded(String charge) {
        return error(400, "invalid_request_error", "charge_already_refunded", null,
                "Charge " + charge + " has already been refunded.", Map.of());
    }

    /** {@code 400} {@code amount_too_large}: more than is left of the charge, in Stripe's words. */
    static ApiError refundTooLarge(long amount, long left, String currency) {
        return error(400, "invalid_request_error", "amount_too_large", "amount", "Refund amount ("
                + money(amount, currency) + ") is greater than unrefunded amount on charge (" + money(left, currency)
                + ")", Map.of());
    }

    /** {@code €1.50}, {@code ¥150}: minor units as the currency writes them. */
    private static String money(long minor, String currency) {
        Currency unit = Currency.getInstance(currency.toUpperCase(Locale.ROOT));
        int digits = Math.max(unit.getDefaultFractionDigits(), 0);
        return unit.getSymbol(Locale.US)
                + BigDecimal.valueOf(minor, digits).toPlainString();
    }

    /** A confirmation with a publishable key whose {@code client_secret} is not the PaymentIntent's. */
    static ApiError clientSecretMismatch() {
        return error(400, "invalid_request_error", "payment_intent_invalid_parameter", "client_secret",
                "The client_secret provided does not match the client_secret associated with the PaymentIntent.",
                Map.of());
    }

    /** A test's scripted refusal in Stripe's shape: nothing is executed, the status says why. */
    static ApiError scripted(int status, Faults settings) {
        return switch (status) {
            case 429 -> rateLimited(settings);
            case 409 -> keyInFlight("(scripted)");
            case 401 -> unauthorized("scripted");
            default -> status >= 500 ? apiError(status, "scripted", settings)
                    : error(status, "invalid_request_error", null, null, "scripted", Map.of());
        };
    }

    /** Any error a test scripts, with exactly the headers given (e.g. {@code Stripe-Should-Retry}, {@code Retry-After}). */
    static ApiError scripted(int status, String type, String code, Map<String, String> headers) {
        return error(status, type, code, null, "scripted", headers);
    }

    private static ApiError error(int status, String type, String code, String param, String message,
            Map<String, String> headers) {
        return new ApiError(status, type, message, headers, details(code, param));
    }

    private static ObjectNode details(String code, String param) {
        ObjectNode details = JSON.createObjectNode();
        if (code != null) {
            details.put("code", code);
        }
        if (param != null) {
            details.put("param", param);
        }
        return details;
    }
}
