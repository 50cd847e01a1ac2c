package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * A charge the simulated provider executed. {@code idempotencyKey} is the provider's own
 * bookkeeping and never appears in the public charge JSON.
 *
 * @param status {@code succeeded} or {@code declined}
 * @param declineCode set only when declined
 * @param paymentMethod the payment method the charge was made with, if the request named one
 */
record Charge(
        String id,
        String status,
        String reference,
        long amount,
        String currency,
        String description,
        String paymentMethod,
        String declineCode,
        String idempotencyKey,
        Instant createdAt) {

    static final String SUCCEEDED = "succeeded";
    static final String DECLINED = "declined";

    boolean declined() {
        return DECLINED.equals(status);
    }

    /** The public shape answered by {@code POST /v1/charges} and listed by the lookup. */
    ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("id", id);
        node.put("status", status);
        node.put("reference", reference);
        node.put("amount", amount);
        node.put("currency", currency);
        node.put("description", description);
        if (paymentMethod != null) {
            node.put("paymentMethod", paymentMethod);
        }
        if (declineCode != null) {
            node.put("declineCode", declineCode);
        }
        node.put("created", createdAt.getEpochSecond());
        return node;
    }

    LedgerEntry toLedgerEntry() {
        return new LedgerEntry(id, reference, amount, currency, status, paymentMethod, idempotencyKey, createdAt);
    }
}
