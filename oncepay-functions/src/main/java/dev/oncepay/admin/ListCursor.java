package dev.oncepay.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository.AttentionPosition;
import dev.oncepay.payment.PaymentStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * Where a listing of the attention index stands, handed to the operator as an opaque
 * {@code nextCursor} (base64url of JSON): the query it belongs to, the last payment returned, and
 * for each shard where its next page starts. A cursor is only valid for the query that made it.
 *
 * @param last the last payment returned (createdAtMs, id)
 * @param shards per shard, in shard order: {@link ShardPosition}
 */
record ListCursor(PaymentStatus status, String tenant, AttentionPosition last, List<ShardPosition> shards) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DONE = "done";

    /** A shard not read yet ({@code after} and {@code done} unset), read up to {@code after}, or read to its end. */
    record ShardPosition(AttentionPosition after, boolean done) {
        static final ShardPosition START = new ShardPosition(null, false);
        static final ShardPosition END = new ShardPosition(null, true);
    }

    ListCursor {
        shards = List.copyOf(shards);
    }

    String encode() {
        ObjectNode root = JSON.createObjectNode();
        root.put("status", status.name());
        if (tenant != null) {
            root.put("tenant", tenant);
        }
        root.set("last", position(last));
        ArrayNode list = root.putArray("shards");
        for (ShardPosition shard : shards) {
            if (shard.done()) {
                list.add(DONE);
            } else {
                list.add(shard.after() == null ? JSON.nullNode() : position(shard.after()));
            }
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(root.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The cursor as the operator sent it back, for the query it must belong to.
     *
     * @throws InvalidRequestException naming {@code cursor}: not one of ours, or of another query
     */
    static ListCursor decode(String text, PaymentStatus status, String tenant, int shardCount) {
        try {
            JsonNode root = JSON.readTree(Base64.getUrlDecoder().decode(text));
            if (!status.name().equals(root.path("status").asText(null))
                    || !Objects.equals(tenant, root.path("tenant").asText(null))) {
                throw invalid("belongs to another listing (status and tenant must be the same)");
            }
            JsonNode list = root.get("shards");
            if (list == null || !list.isArray() || list.size() != shardCount) {
                throw invalid("is not a cursor of this listing");
            }
            List<ShardPosition> shards = new ArrayList<>();
            for (JsonNode shard : list) {
                if (shard.isNull()) {
                    shards.add(ShardPosition.START);
                } else if (DONE.equals(shard.asText(null)) && shard.isTextual()) {
                    shards.add(ShardPosition.END);
                } else {
                    shards.add(new ShardPosition(position(shard), false));
                }
            }
            return new ListCursor(status, tenant, position(root.get("last")), shards);
        } catch (InvalidRequestException e) {
            throw e;
        } catch (Exception notOurs) {
            throw invalid("is not a cursor this API handed out");
        }
    }

    private static ObjectNode position(AttentionPosition p) {
        return JSON.createObjectNode().put("createdAtMs", p.createdAtMs()).put("id", p.paymentId());
    }

    private static AttentionPosition position(JsonNode node) {
        if (node == null || !node.path("createdAtMs").isIntegralNumber()
                || !Payment.isWellFormedId(node.path("id").asText(null))) {
            throw invalid("is not a cursor this API handed out");
        }
        return new AttentionPosition(node.get("createdAtMs").asLong(), node.get("id").asText());
    }

    private static InvalidRequestException invalid(String why) {
        return new InvalidRequestException("cursor", why);
    }
}
