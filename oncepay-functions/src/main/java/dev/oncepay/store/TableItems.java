package dev.oncepay.store;

import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/** The single-item reads and claims that idempotency keys, payments and the webhook journal share. */
public final class TableItems {
    /** A claim can lose to an item that vanishes before it is read (released): try again. */
    private static final int CLAIM_ATTEMPTS = 3;

    private TableItems() {
    }

    /** One item by partition key, read consistently. */
    public static Optional<Map<String, AttributeValue>> readConsistently(DynamoDbClient dynamo, String table,
            String pk) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(Attr.key(pk))
                .consistentRead(true)).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item);
    }

    /** Puts {@code item} unless an item has its key: one conditional PutItem; {@code false} if one had. */
    public static boolean putIfAbsent(DynamoDbClient dynamo, String table, Map<String, AttributeValue> item) {
        try {
            dynamo.putItem(b -> b.tableName(table).item(item).conditionExpression("attribute_not_exists(#pk)")
                    .expressionAttributeNames(Map.of("#pk", Table.PK)));
            return true;
        } catch (ConditionalCheckFailedException exists) {
            return false;
        }
    }

    /**
     * Puts {@code item} unless a live item has its key: one conditional PutItem decides between
     * concurrent writers. An item whose {@link Table#EXPIRES_AT} has passed counts as absent —
     * expiry is compared here, not left to TTL, which deletes days late — unless it carries a
     * {@link Table#LEASE_EXPIRES_AT} that has not passed: a run that took the item over just
     * before its retention ended is still working on it, and must not lose it to a fresh claim.
     * Items without a lease (webhook journal entries) are absent at their expiry alone.
     *
     * @return empty if {@code item} was written, else the live item that won
     */
    public static Optional<Map<String, AttributeValue>> claim(DynamoDbClient dynamo, String table,
            Map<String, AttributeValue> item, Instant now) {
        String pk = Attr.string(item, Table.PK);
        for (int attempt = 1; ; attempt++) {
            try {
                dynamo.putItem(b -> b.tableName(table).item(item)
                        .conditionExpression("attribute_not_exists(#pk) OR (#expiresAt < :now"
                                + " AND (attribute_not_exists(#lease) OR #lease < :nowMillis))")
                        .expressionAttributeNames(Map.of("#pk", Table.PK, "#expiresAt", Table.EXPIRES_AT,
                                "#lease", Table.LEASE_EXPIRES_AT))
                        .expressionAttributeValues(Map.of(":now", Attr.n(now.getEpochSecond()),
                                ":nowMillis", Attr.n(now.toEpochMilli())))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
                return Optional.empty();
            } catch (ConditionalCheckFailedException taken) {
                Optional<Map<String, AttributeValue>> winner = taken.hasItem() && !taken.item().isEmpty()
                        ? Optional.of(taken.item())
                        // Stores that ignore ReturnValuesOnConditionCheckFailure (dynalite): read it.
                        : readConsistently(dynamo, table, pk);
                if (winner.isPresent()) {
                    return winner;
                }
                if (attempt == CLAIM_ATTEMPTS) {
                    throw new IllegalStateException("item " + pk + " kept changing under a claim", taken);
                }
            }
        }
    }
}
