package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A Stripe request body ({@code application/x-www-form-urlencoded}) as Stripe reads it: flat
 * names, nested ones in brackets ({@code metadata[oncepay_payment_id]}). Two forms are the same
 * request when they carry the same names and values, in any order (Stripe's idempotency check).
 */
record StripeForm(Map<String, String> fields) {

    StripeForm {
        fields = Collections.unmodifiableMap(new TreeMap<>(fields));
    }

    /** @throws ApiError 400 when a name repeats or a pair cannot be decoded */
    static StripeForm parse(String raw) {
        Map<String, String> fields = new TreeMap<>();
        if (raw == null || raw.isEmpty()) {
            return new StripeForm(fields);
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name;
            String value;
            try {
                name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw StripeErrors.invalidRequest(null, "Invalid form encoding: " + pair);
            }
            if (fields.put(name, value) != null) {
                throw StripeErrors.invalidRequest(name, "Received the parameter " + name + " more than once.");
            }
        }
        return new StripeForm(fields);
    }

    String get(String name) {
        return fields.get(name);
    }

    /** The {@code metadata[...]} entries, without the brackets. */
    Map<String, String> metadata() {
        Map<String, String> metadata = new TreeMap<>();
        fields.forEach((name, value) -> {
            if (name.startsWith("metadata[") && name.endsWith("]")) {
                metadata.put(name.substring("metadata[".length(), name.length() - 1), value);
            }
        });
        return metadata;
    }

    /** For {@link StoredResponse#request()}: equal forms give equal JSON. */
    ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        fields.forEach(node::put);
        return node;
    }
}
