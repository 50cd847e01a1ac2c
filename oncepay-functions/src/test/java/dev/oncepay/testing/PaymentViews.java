package dev.oncepay.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The payment JSON of the HTTP contract as tests compare it. */
public final class PaymentViews {
    private PaymentViews() {
    }

    /**
     * A {@code GET /payments/{id}} body less what only the lookup adds (the order binding and the
     * refunds): what a charge's answer (and its replays) show of the same payment.
     */
    public static JsonNode asCharged(JsonNode shown) {
        ObjectNode copy = shown.deepCopy();
        copy.remove(java.util.List.of("order", "amountRefunded", "amountRefundPending", "refundStatus", "refunds"));
        return copy;
    }
}
