package dev.oncepay.refund;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.money.MoneyBody;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A validated {@code POST /payments/{id}/refunds} body: an optional amount in minor units (absent:
 * whatever is left of the payment when the refund is reserved), an optional free-text reason and
 * string metadata. Anything else, and any unknown field, is rejected before anything is stored.
 */
public record RefundRequest(OptionalLong amount, String reason, Map<String, String> metadata) {
    static final int MAX_REASON = 500;
    static final int MAX_METADATA_PAIRS = 20;
    static final int MAX_METADATA_KEY = 40;
    static final int MAX_METADATA_VALUE = 500;

    private static final Set<String> FIELDS = Set.of("amount", "reason", "metadata");
    private static final Pattern METADATA_KEY = Pattern.compile("[A-Za-z0-9_.-]+");

    public RefundRequest {
        metadata = Map.copyOf(metadata);
    }

    /** @param body the request body, already checked to be the client's UTF-8 */
    public static RefundRequest parse(byte[] body) {
        MoneyBody fields = MoneyBody.read(body, FIELDS);
        OptionalLong amount = fields.field("amount") == null ? OptionalLong.empty() : OptionalLong.of(fields.amount());
        String reason = fields.text("reason", false, MAX_REASON);
        Map<String, String> metadata = metadata(fields);
        fields.requireValid();
        return new RefundRequest(amount, reason, metadata);
    }

    private static Map<String, String> metadata(MoneyBody fields) {
        JsonNode node = fields.field("metadata");
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject() || node.size() > MAX_METADATA_PAIRS) {
            fields.reject("metadata", "must be an object of at most " + MAX_METADATA_PAIRS + " string values");
            return Map.of();
        }
        Map<String, String> pairs = new LinkedHashMap<>();
        for (var field : (Iterable<Map.Entry<String, JsonNode>>) node::fields) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            if (key.length() > MAX_METADATA_KEY || !METADATA_KEY.matcher(key).matches()) {
                fields.reject("metadata." + key, "keys are 1-" + MAX_METADATA_KEY + " letters, digits, '_', '.' or '-'");
            } else if (!value.isTextual() || value.textValue().length() > MAX_METADATA_VALUE) {
                fields.reject("metadata." + key, "must be a string of at most " + MAX_METADATA_VALUE + " characters");
            } else {
                pairs.put(key, value.textValue());
            }
        }
        return pairs;
    }

    /**
     * Canonical form for the request fingerprint: fixed field order, metadata sorted, no
     * insignificant white space; an absent amount stays absent ("what is left" is another request
     * than any one amount).
     */
    public String canonicalJson() {
        Map<String, Object> canonical = new LinkedHashMap<>();
        amount.ifPresent(a -> canonical.put("amount", a));
        canonical.put("reason", reason);
        canonical.put("metadata", new TreeMap<>(metadata));
        return MoneyBody.canonicalJson(canonical);
    }
}
