package dev.oncepay.testkit.model;

import static dev.oncepay.testkit.model.Attributes.key;
import static dev.oncepay.testkit.model.Attributes.n;
import static dev.oncepay.testkit.model.Attributes.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Table;
import dev.oncepay.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;

/** The limits DynamoDB enforces and the model with it: expression length, item size, each partition's throughput. */
class DynamoDbModelLimitsTest {
    private static final String TABLE = "limits";
    private final SettableClock clock = SettableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final DynamoDbModel model = new DynamoDbModel(TABLE, clock);

    @Test
    void anExpressionOver4KbIsRefusedAsDynamoDbRefusesIt() {
        model.putItem(b -> b.tableName(TABLE).item(Map.of(Table.PK, s("hot"), "m", AttributeValue.fromM(Map.of()))));
        assertEquals(4096, removals(4096).length());
        model.updateItem(b -> b.tableName(TABLE).key(key("hot")).updateExpression(removals(4096))
                .expressionAttributeNames(names(removals(4096))));

        String tooLong = removals(4097);
        DynamoDbException refused = assertThrows(DynamoDbException.class, () -> model.updateItem(b -> b
                .tableName(TABLE).key(key("hot")).updateExpression(tooLong).expressionAttributeNames(names(tooLong))));
        assertEquals(400, refused.statusCode());
        assertEquals("ValidationException", refused.awsErrorDetails().errorCode());
        assertEquals("Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;"
                + " expression size: 4097", refused.awsErrorDetails().errorMessage());
        assertEquals(2, model.load("hot").orElseThrow().writes(), "the put and the 4 KB update; the refused one cost nothing");
    }

    @Test
    void eachItemServesAThousandWriteUnitsASecondAndNoMore() {
        for (int i = 0; i < 1000; i++) {
            add("hot");
        }
        assertThrows(ProvisionedThroughputExceededException.class, () -> add("hot"));
        add("cold"); // a hot item does not slow down its neighbours
        clock.advance(Duration.ofSeconds(1));
        add("hot");

        ItemLoad hot = model.load("hot").orElseThrow();
        assertEquals(1001, hot.writes(), "the throttled write consumed nothing");
        assertEquals(1000, hot.maxWriteUnitsPerSecond());
        assertEquals(1, hot.throttledWrites());
        assertEquals(2, hot.seconds());
        assertEquals(500.5, hot.meanWritesPerSecond());
        assertEquals("hot", model.hottest().orElseThrow().pk());
        assertEquals(1, model.throttled());
    }

    @Test
    void aWriteCostsAUnitPerKbOfTheLargerItemAndAFailedConditionCostsToo() {
        model.putItem(b -> b.tableName(TABLE).item(Map.of(Table.PK, s("big"), "blob", s("x".repeat(2500)))));
        assertEquals(3, model.load("big").orElseThrow().writeUnits(), "2.5 KB: 3 units");
        assertThrows(ConditionalCheckFailedException.class, () -> model.updateItem(b -> b.tableName(TABLE)
                .key(key("big")).updateExpression("REMOVE #b").conditionExpression("attribute_not_exists(#b)")
                .expressionAttributeNames(Map.of("#b", "blob"))));
        model.updateItem(b -> b.tableName(TABLE).key(key("big")).updateExpression("REMOVE #b")
                .expressionAttributeNames(Map.of("#b", "blob")));
        ItemLoad big = model.load("big").orElseThrow();
        assertEquals(3, big.writes());
        assertEquals(9, big.writeUnits(), "the failed condition and the shrinking write cost the old size");
    }

    @Test
    void readsCostHalfAUnitPer4KbEventuallyAndOneConsistently() {
        model.putItem(b -> b.tableName(TABLE).item(Map.of(Table.PK, s("hot"))));
        clock.advance(Duration.ofSeconds(1));
        for (int i = 0; i < 3000; i++) {
            model.getItem(b -> b.tableName(TABLE).key(key("hot")).consistentRead(true));
        }
        assertThrows(ProvisionedThroughputExceededException.class,
                () -> model.getItem(b -> b.tableName(TABLE).key(key("hot")).consistentRead(true)));
        clock.advance(Duration.ofSeconds(1));
        for (int i = 0; i < 6000; i++) {
            model.getItem(b -> b.tableName(TABLE).key(key("hot")));
        }
        assertThrows(ProvisionedThroughputExceededException.class,
                () -> model.getItem(b -> b.tableName(TABLE).key(key("hot"))));
        ItemLoad hot = model.load("hot").orElseThrow();
        assertEquals(6000, hot.maxReadsPerSecond());
        assertEquals(3000.0, hot.maxReadUnitsPerSecond());
        assertEquals(2, hot.throttledReads());
    }

    @Test
    void aBatchGetLeavesAThrottledItsKeysUnprocessedAndFailsOnlyIfItServedNone() {
        for (int i = 0; i < 3000; i++) {
            model.getItem(b -> b.tableName(TABLE).key(key("hot")).consistentRead(true));
        }
        BatchGetItemResponse partly = model.batchGetItem(b -> b.requestItems(Map.of(TABLE,
                KeysAndAttributes.builder().keys(key("hot"), key("cold")).consistentRead(true).build())));
        assertEquals(List.of(key("hot")), partly.unprocessedKeys().get(TABLE).keys());
        assertThrows(ProvisionedThroughputExceededException.class, () -> model.batchGetItem(b -> b.requestItems(
                Map.of(TABLE, KeysAndAttributes.builder().keys(key("hot")).consistentRead(true).build()))));
        DynamoDbException tooMany = assertThrows(DynamoDbException.class, () -> model.batchGetItem(b -> b.requestItems(
                Map.of(TABLE, KeysAndAttributes.builder().keys(java.util.stream.IntStream.range(0, 101)
                        .mapToObj(i -> key("k" + i)).toList()).build()))));
        assertEquals("ValidationException", tooMany.awsErrorDetails().errorCode());
    }

    @Test
    void anItemGrowingPast400KbIsRefused() {
        model.putItem(b -> b.tableName(TABLE).item(Map.of(Table.PK, s("big"), "a", s("x".repeat(300 * 1024)))));
        DynamoDbException refused = assertThrows(DynamoDbException.class, () -> model.updateItem(b -> b
                .tableName(TABLE).key(key("big")).updateExpression("SET #b = :b")
                .expressionAttributeNames(Map.of("#b", "b"))
                .expressionAttributeValues(Map.of(":b", s("y".repeat(120 * 1024))))));
        assertEquals("Item size to update has exceeded the maximum allowed size", refused.awsErrorDetails().errorMessage());
        assertTrue(model.item("big").orElseThrow().get("b") == null);
    }

    private void add(String pk) {
        model.updateItem(b -> b.tableName(TABLE).key(key(pk)).updateExpression("ADD #n :one")
                .expressionAttributeNames(Map.of("#n", "n")).expressionAttributeValues(Map.of(":one", n(1))));
    }

    /** {@code REMOVE #m.#e0, #m.#e1, ...} padded to exactly {@code bytes}, as the bulkhead's cleanup builds it. */
    private static String removals(int bytes) {
        StringBuilder expression = new StringBuilder("REMOVE #m.#e0");
        for (int i = 1; expression.length() + (", #m.#e" + i).length() <= bytes; i++) {
            expression.append(", #m.#e").append(i);
        }
        while (expression.length() < bytes) {
            expression.append(' ');
        }
        return expression.toString();
    }

    private static Map<String, String> names(String expression) {
        Map<String, String> names = new HashMap<>(Map.of("#m", "m"));
        for (String token : expression.split("[ ,.]+")) {
            if (token.startsWith("#e")) {
                names.put(token, "slot" + token.substring(2));
            }
        }
        return names;
    }
}
