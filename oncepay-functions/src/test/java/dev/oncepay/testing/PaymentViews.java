package dev.oncepay.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The payment JSON of the HTTP contract as tests compare it. */
public final class PaymentViews {
    private PaymentViews() {
    }

    /**
     * A {@code GET /payments/{id}} body less the order binding only the lookup adds: what a charge's
     * answer (and its replays) show of the same payment.
     */
    public static JsonNode withoutOrder(JsonNode shown) {
        ObjectNode copy = shown.deepCopy();
        copy.remove("order");
        return copy;
    }
}
