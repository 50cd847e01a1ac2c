package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Pattern;

/**
 * A validated {@code POST /v1/charges} body. {@code description}, {@code paymentMethod} and
 * {@code customer} are optional (may be null); the tokens take part in the idempotency comparison
 * like every other field.
 */
record ChargeParams(long amount, String currency, String reference, String description, String paymentMethod,
        String customer) {

    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    /** @throws ApiError 400 naming the first invalid field */
    static ChargeParams parse(JsonNode body) {
        if (!body.isObject()) {
            throw ApiError.invalidRequest("request body must be a JSON object");
        }
        JsonNode amount = body.path("amount");
        if (!amount.isIntegralNumber() || !amount.canConvertToLong() || amount.longValue() <= 0) {
            throw ApiError.invalidRequest("amount must be a positive integer in minor units");
        }
        JsonNode currency = body.path("currency");
        if (!currency.isTextual() || !CURRENCY.matcher(currency.textValue()).matches()) {
            throw ApiError.invalidRequest("currency must be 3 uppercase letters (ISO 4217)");
        }
        JsonNode reference = body.path("reference");
        if (!reference.isTextual() || reference.textValue().isBlank()) {
            throw ApiError.invalidRequest("reference must be a non-empty string");
        }
        JsonNode description = body.path("description");
        if (!description.isMissingNode() && !description.isNull() && !description.isTextual()) {
            throw ApiError.invalidRequest("description must be a string");
        }
        return new ChargeParams(amount.longValue(), currency.textValue(), reference.textValue(),
                description.isTextual() ? description.textValue() : null, token(body, "paymentMethod"),
                token(body, "customer"));
    }

    private static String token(JsonNode body, String field) {
        JsonNode value = body.path(field);
        if (value.isMissingNode()) {
            return null;
        }
        if (!value.isTextual() || value.textValue().isBlank()) {
            throw ApiError.invalidRequest(field + " must be a non-empty string when present");
        }
        return value.textValue();
    }
}
