package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Map;

/**
 * A refund the simulated provider accepted: the oracle that proves "never refunded more than was
 * charged". {@code idempotencyKey} is the provider's own bookkeeping and never appears in the
 * public refund JSON.
 *
 * @param charge the refunded charge's id
 * @param reference the caller's refund id
 * @param metadata the caller's string pairs, empty when none were sent
 */
public record Refund(
        String id,
        String charge,
        long amount,
        String currency,
        RefundStatus status,
        String reference,
        Map<String, String> metadata,
        String idempotencyKey,
        Instant createdAt) {

    static final String SUCCEEDED_EVENT = "refund.succeeded";
    static final String FAILED_EVENT = "refund.failed";

    public Refund {
        metadata = Map.copyOf(metadata);
    }

    Refund settled(RefundStatus outcome) {
        return new Refund(id, charge, amount, currency, outcome, reference, metadata, idempotencyKey, createdAt);
    }

    /** The event this refund's status is reported with, or null while it is pending. */
    String eventType() {
        return switch (status) {
            case SUCCEEDED -> SUCCEEDED_EVENT;
            case FAILED -> FAILED_EVENT;
            case PENDING -> null;
        };
    }

    /** The public shape answered by {@code POST /v1/refunds}, its lookups and its events. */
    ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("id", id);
        node.put("object", "refund");
        node.put("charge", charge);
        node.put("amount", amount);
        node.put("currency", currency);
        node.put("status", status.wire());
        node.put("reference", reference);
        if (!metadata.isEmpty()) {
            ObjectNode pairs = node.putObject("metadata");
            metadata.forEach(pairs::put);
        }
        node.put("created", createdAt.getEpochSecond());
        return node;
    }

    /** The shape listed by {@code /_sim/ledger}: the public one with the key the refund was made with. */
    ObjectNode toLedgerJson(ObjectMapper json) {
        return toJson(json).put("idempotencyKey", idempotencyKey).put("createdAt", createdAt.toString());
    }
}
