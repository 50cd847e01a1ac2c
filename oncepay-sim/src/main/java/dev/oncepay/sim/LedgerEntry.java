package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * One charge the simulator actually executed (succeeded or declined): the oracle that proves
 * "no double charge".
 */
public record LedgerEntry(
        String id,
        String reference,
        long amount,
        String currency,
        String status,
        String paymentMethod,
        String idempotencyKey,
        Instant createdAt) {

    ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("id", id);
        node.put("reference", reference);
        node.put("amount", amount);
        node.put("currency", currency);
        node.put("status", status);
        if (paymentMethod != null) {
            node.put("paymentMethod", paymentMethod);
        }
        node.put("idempotencyKey", idempotencyKey);
        node.put("createdAt", createdAt.toString());
        return node;
    }
}
