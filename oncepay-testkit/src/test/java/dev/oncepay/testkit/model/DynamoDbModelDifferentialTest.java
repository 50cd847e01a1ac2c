package dev.oncepay.testkit.model;

import static dev.oncepay.testkit.model.Attributes.key;
import static dev.oncepay.testkit.model.Attributes.n;
import static dev.oncepay.testkit.model.Attributes.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.contract.Table;
import dev.oncepay.contract.TableSchema;
import dev.oncepay.testkit.Dynalite;
import dev.oncepay.testkit.SettableClock;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * The model answers as dynalite does: one sequence of requests, every expression form the fleet
 * protection uses (and the ways each can fail), sent to both; every answer, every error and every
 * item left behind must be the same.
 */
class DynamoDbModelDifferentialTest {
    private static final String TABLE = "model-diff";
    private static Dynalite dynalite;
    private static DynamoDbClient real;

    /** What a request came to, comparable across the two stores. */
    record Outcome(String step, Object answer, String error, String code, String message) {
    }

    @BeforeAll
    static void start() {
        dynalite = Dynalite.start();
        real = DynamoDbClient.builder().endpointOverride(URI.create(dynalite.endpoint())).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        TableSchema.createIfMissing(real, TABLE);
    }

    @AfterAll
    static void stop() {
        real.close();
        dynalite.close();
    }

    @Test
    void answersEveryRequestAsDynaliteDoes() {
        DynamoDbModel model = new DynamoDbModel(TABLE, SettableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z")));
        Map<String, Function<DynamoDbClient, Object>> steps = steps();
        List<Outcome> expected = run(real, steps);
        List<Outcome> actual = run(model, steps);
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "step " + expected.get(i).step());
        }
        for (String pk : List.of("a", "b", "c", "gone", "never")) {
            assertEquals(real.getItem(b -> b.tableName(TABLE).key(key(pk)).consistentRead(true)).item(),
                    model.getItem(b -> b.tableName(TABLE).key(key(pk)).consistentRead(true)).item(), "item " + pk);
        }
    }

    private static List<Outcome> run(DynamoDbClient client, Map<String, Function<DynamoDbClient, Object>> steps) {
        List<Outcome> outcomes = new ArrayList<>();
        steps.forEach((name, step) -> {
            try {
                outcomes.add(new Outcome(name, step.apply(client), null, null, null));
            } catch (AwsServiceException e) {
                outcomes.add(new Outcome(name, null, e.getClass().getSimpleName(), e.awsErrorDetails().errorCode(),
                        e.awsErrorDetails().errorMessage()));
            }
        });
        return outcomes;
    }

    /** The requests, in order, by name; each returns what is compared (attributes, an item, items). */
    private static Map<String, Function<DynamoDbClient, Object>> steps() {
        Map<String, Function<DynamoDbClient, Object>> steps = new LinkedHashMap<>();
        Map<String, AttributeValue> itemA = Map.of(Table.PK, s("a"), "state", s("CLOSED"), "failures", n(0),
                "slots", AttributeValue.fromM(Map.of("s1", n(100), "s2", n(200))));
        steps.put("put a", c -> c.putItem(b -> b.tableName(TABLE).item(itemA)).attributes());
        steps.put("put a if absent (fails)", c -> c.putItem(b -> b.tableName(TABLE).item(itemA)
                .conditionExpression("attribute_not_exists(#pk)").expressionAttributeNames(Map.of("#pk", Table.PK)))
                .attributes());
        steps.put("put b if absent, ALL_OLD", c -> c.putItem(b -> b.tableName(TABLE)
                .item(Map.of(Table.PK, s("b"), "name", s("bee"))).conditionExpression("attribute_not_exists(#pk)")
                .expressionAttributeNames(Map.of("#pk", Table.PK)).returnValues(ReturnValue.ALL_OLD)).attributes());
        steps.put("put b again, ALL_OLD", c -> c.putItem(b -> b.tableName(TABLE)
                .item(Map.of(Table.PK, s("b"), "name", s("bea"), "count", n(7))).returnValues(ReturnValue.ALL_OLD))
                .attributes());
        steps.put("get a consistent", c -> c.getItem(b -> b.tableName(TABLE).key(key("a")).consistentRead(true)).item());
        steps.put("get b eventually", c -> c.getItem(b -> b.tableName(TABLE).key(key("b")).consistentRead(false)).item());
        steps.put("get absent", c -> c.getItem(b -> b.tableName(TABLE).key(key("never"))).item());
        steps.put("batch get", c -> {
            var response = c.batchGetItem(b -> b.requestItems(Map.of(TABLE, KeysAndAttributes.builder()
                    .keys(key("a"), key("b"), key("never")).consistentRead(true).build())));
            return List.of(new HashSet<>(response.responses().get(TABLE)), response.unprocessedKeys());
        });

        // SET forms, ADD, REMOVE, map paths, every ReturnValues
        steps.put("set plus, ALL_NEW", update("a", "SET #f = #f + :one", null, Map.of("#f", "failures"),
                Map.of(":one", n(1)), ReturnValue.ALL_NEW));
        steps.put("set minus, UPDATED_NEW", update("a", "SET #f = #f - :two", null, Map.of("#f", "failures"),
                Map.of(":two", n(2)), ReturnValue.UPDATED_NEW));
        steps.put("if_not_exists plus, UPDATED_OLD", update("a",
                "SET #t = if_not_exists(#t, :burst) + :delta, #k = :kind", null,
                Map.of("#t", "tokens", "#k", "kind"), Map.of(":burst", n(10000), ":delta", n(-1000), ":kind", s("breaker")),
                ReturnValue.UPDATED_OLD));
        steps.put("if_not_exists existing, ALL_OLD", update("a", "SET #t = if_not_exists(#t, :burst) + :delta", null,
                Map.of("#t", "tokens"), Map.of(":burst", n(10000), ":delta", n(500)), ReturnValue.ALL_OLD));
        steps.put("map path set and remove, UPDATED_NEW", update("a", "SET #m.#new = :until REMOVE #m.#old", null,
                Map.of("#m", "slots", "#new", "s3", "#old", "s1"), Map.of(":until", n(300)), ReturnValue.UPDATED_NEW));
        steps.put("map path into a missing map (invalid)", update("b", "SET #m.#k = :v", null,
                Map.of("#m", "slots", "#k", "s1"), Map.of(":v", n(1)), ReturnValue.ALL_NEW));
        steps.put("remove a missing map's entry (invalid)", update("b", "REMOVE #m.#k", null,
                Map.of("#m", "slots", "#k", "s1"), null, ReturnValue.NONE));
        steps.put("add to absent and present", update("b", "ADD #n :five, #c :one", null,
                Map.of("#n", "added", "#c", "count"), Map.of(":five", n(5), ":one", n(1)), ReturnValue.ALL_NEW));
        steps.put("add to a string (invalid)", update("b", "ADD #n :one", null, Map.of("#n", "name"),
                Map.of(":one", n(1)), ReturnValue.NONE));
        steps.put("plus on a missing attribute (invalid)", update("b", "SET #x = #missing + :one", null,
                Map.of("#x", "x", "#missing", "missing"), Map.of(":one", n(1)), ReturnValue.NONE));
        steps.put("remove top-level, NONE", update("b", "REMOVE #n", null, Map.of("#n", "added"), null,
                ReturnValue.NONE));
        steps.put("update creates c, ALL_NEW", update("c", "SET #s = :open, #o = :t ADD #openings :one", null,
                Map.of("#s", "state", "#o", "openedAt", "#openings", "openings"),
                Map.of(":open", s("OPEN"), ":t", n(1000), ":one", n(1)), ReturnValue.ALL_NEW));
        steps.put("set a whole map", update("c", "SET #m = :slots", null, Map.of("#m", "slots"),
                Map.of(":slots", AttributeValue.fromM(Map.of("x", n(5)))), ReturnValue.UPDATED_NEW));

        // conditions: comparators, AND / OR / NOT, parentheses, functions, size
        steps.put("= and AND holds", update("a", "SET #s = :open", "#s = :closed AND #f <= :zero",
                Map.of("#s", "state", "#f", "failures"), Map.of(":open", s("OPEN"), ":closed", s("CLOSED"),
                        ":zero", n(0)), ReturnValue.ALL_NEW));
        steps.put("= fails", update("a", "SET #s = :open", "#s = :closed", Map.of("#s", "state"),
                Map.of(":open", s("OPEN"), ":closed", s("CLOSED")), ReturnValue.ALL_NEW));
        steps.put("OR with parentheses holds", update("a", "SET #s = :half, #o = :owner",
                "(#s = :closed AND #f > :zero) OR (#s = :open AND #f < :zero)",
                Map.of("#s", "state", "#o", "owner", "#f", "failures"),
                Map.of(":half", s("HALF_OPEN"), ":owner", s("me"), ":closed", s("CLOSED"), ":open", s("OPEN"),
                        ":zero", n(0)), ReturnValue.UPDATED_NEW));
        steps.put("<> and >= hold", update("a", "SET #f = :zero", "#s <> :closed AND #t >= :floor",
                Map.of("#s", "state", "#f", "failures", "#t", "tokens"),
                Map.of(":zero", n(0), ":closed", s("CLOSED"), ":floor", n(9500)), ReturnValue.ALL_NEW));
        steps.put("<> on a missing attribute holds", update("a", "SET #x = :v", "#missing <> :v",
                Map.of("#x", "x", "#missing", "missing"), Map.of(":v", s("v")), ReturnValue.UPDATED_NEW));
        steps.put("< across types fails", update("a", "SET #x = :v", "#s < :num",
                Map.of("#x", "x", "#s", "state"), Map.of(":v", s("w"), ":num", n(5)), ReturnValue.NONE));
        steps.put("string order holds", update("a", "SET #x = :v", "#s > :a AND #s < :z",
                Map.of("#x", "x", "#s", "state"), Map.of(":v", s("y"), ":a", s("A"), ":z", s("Z")), ReturnValue.NONE));
        steps.put("NOT attribute_exists fails", update("a", "REMOVE #o", "NOT attribute_exists(#o)",
                Map.of("#o", "owner"), null, ReturnValue.ALL_NEW));
        steps.put("attribute_not_exists OR nested", update("a", "REMOVE #o",
                "attribute_not_exists(#s) OR (#s = :half AND (attribute_not_exists(#w) OR #w <= :floor))",
                Map.of("#o", "owner", "#s", "state", "#w", "windowStart"),
                Map.of(":half", s("HALF_OPEN"), ":floor", n(5)), ReturnValue.ALL_NEW));
        steps.put("size below room holds", update("a", "SET #m.#k = :until", "size(#m) < :room",
                Map.of("#m", "slots", "#k", "s4"), Map.of(":until", n(400), ":room", n(3)), ReturnValue.ALL_NEW));
        steps.put("size at room fails", update("a", "SET #m.#k = :until", "size(#m) < :room",
                Map.of("#m", "slots", "#k", "s5"), Map.of(":until", n(500), ":room", n(3)), ReturnValue.ALL_NEW));
        steps.put("size of a missing map fails", update("b", "SET #m = :empty", "size(#m) < :room",
                Map.of("#m", "slots"), Map.of(":empty", AttributeValue.fromM(Map.of()), ":room", n(3)),
                ReturnValue.NONE));
        steps.put("map entry compared", update("a", "SET #x = :v", "#m.#k = :until AND attribute_exists(#m.#k)",
                Map.of("#x", "x", "#m", "slots", "#k", "s4"), Map.of(":v", s("z"), ":until", n(400)),
                ReturnValue.UPDATED_NEW));

        // refused before anything happens
        steps.put("unused name", update("a", "SET #x = :v", null, Map.of("#x", "x", "#unused", "u"),
                Map.of(":v", s("v")), ReturnValue.NONE));
        steps.put("unused value", update("a", "SET #x = :v", null, Map.of("#x", "x"),
                Map.of(":v", s("v"), ":unused", s("u")), ReturnValue.NONE));
        steps.put("undefined name", update("a", "SET #x = :v", null, Map.of(), Map.of(":v", s("v")),
                ReturnValue.NONE));
        steps.put("overlapping paths", update("a", "SET #m = :v REMOVE #m.#k", null,
                Map.of("#m", "slots", "#k", "s4"), Map.of(":v", s("v")), ReturnValue.NONE));
        steps.put("key attribute", update("a", "SET #pk = :v", null, Map.of("#pk", Table.PK), Map.of(":v", s("v")),
                ReturnValue.NONE));
        steps.put("item over 400 KB", c -> c.putItem(b -> b.tableName(TABLE)
                .item(Map.of(Table.PK, s("big"), "blob", s("x".repeat(410 * 1024))))).attributes());

        // deletes
        steps.put("delete with failing condition", c -> c.deleteItem(b -> b.tableName(TABLE).key(key("c"))
                .conditionExpression("#s = :closed").expressionAttributeNames(Map.of("#s", "state"))
                .expressionAttributeValues(Map.of(":closed", s("CLOSED"))).returnValues(ReturnValue.ALL_OLD))
                .attributes());
        steps.put("put gone", c -> c.putItem(b -> b.tableName(TABLE).item(Map.of(Table.PK, s("gone")))).attributes());
        steps.put("delete gone, ALL_OLD", c -> c.deleteItem(b -> b.tableName(TABLE).key(key("gone"))
                .returnValues(ReturnValue.ALL_OLD)).attributes());
        steps.put("delete absent", c -> c.deleteItem(b -> b.tableName(TABLE).key(key("gone"))).attributes());
        return steps;
    }

    private static Function<DynamoDbClient, Object> update(String pk, String update, String condition,
            Map<String, String> names, Map<String, AttributeValue> values, ReturnValue returns) {
        return c -> c.updateItem(b -> {
            b.tableName(TABLE).key(key(pk)).updateExpression(update).returnValues(returns);
            if (condition != null) {
                b.conditionExpression(condition);
            }
            if (names != null && !names.isEmpty()) {
                b.expressionAttributeNames(names);
            }
            if (values != null) {
                b.expressionAttributeValues(values);
            }
        }).attributes();
    }
}
