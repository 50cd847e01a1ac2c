package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A validated {@code POST /v1/refunds} body.
 *
 * @param amount empty: whatever is left of the charge when the refund executes
 * @param metadata string pairs, empty when absent
 */
record RefundParams(String charge, OptionalLong amount, String reference, Map<String, String> metadata) {

    /** @throws ApiError 400 naming the first invalid field */
    static RefundParams parse(JsonNode body) {
        if (!body.isObject()) {
            throw ApiError.invalidRequest("request body must be a JSON object");
        }
        JsonNode charge = body.path("charge");
        if (!charge.isTextual() || charge.textValue().isBlank()) {
            throw ApiError.invalidRequest("charge must be a non-empty string");
        }
        JsonNode amount = body.path("amount");
        if (!amount.isMissingNode()
                && (!amount.isIntegralNumber() || !amount.canConvertToLong() || amount.longValue() <= 0)) {
            throw ApiError.invalidRequest("amount must be a positive integer in minor units when present");
        }
        JsonNode reference = body.path("reference");
        if (!reference.isTextual() || reference.textValue().isBlank()) {
            throw ApiError.invalidRequest("reference must be a non-empty string");
        }
        return new RefundParams(charge.textValue(),
                amount.isMissingNode() ? OptionalLong.empty() : OptionalLong.of(amount.longValue()),
                reference.textValue(), metadata(body.path("metadata")));
    }

    private static Map<String, String> metadata(JsonNode node) {
        if (node.isMissingNode()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw ApiError.invalidRequest("metadata must be an object of strings");
        }
        Map<String, String> pairs = new LinkedHashMap<>();
        for (var field : (Iterable<Map.Entry<String, JsonNode>>) node::fields) {
            if (!field.getValue().isTextual()) {
                throw ApiError.invalidRequest("metadata." + field.getKey() + " must be a string");
            }
            pairs.put(field.getKey(), field.getValue().textValue());
        }
        return pairs;
    }
}
