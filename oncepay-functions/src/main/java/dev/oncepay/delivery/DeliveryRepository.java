package dev.oncepay.delivery;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.queue.EventDeliveryJob;
import dev.oncepay.store.TableItems;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Delivery records ({@link Table#KIND_DELIVERY}): one item per (tenant, endpoint, event), written
 * by event delivery on each attempt with one UpdateItem, read by the operator API per payment
 * ({@link #findAll}) and per endpoint ({@link #since}, over the {@link Table#DELIVERY_INDEX} index,
 * whose partition {@code <tenant>#<endpoint>#<shard>} spreads a busy endpoint over
 * {@code oncepay.sweep.shards} partitions).
 */
@ApplicationScoped
public class DeliveryRepository {
    /** DynamoDB's most keys per BatchGetItem. */
    private static final int BATCH_GET_LIMIT = 100;

    /** What {@link #recordAttempt} wrote. */
    public enum Recorded {
        /** The record holds this attempt. */
        WRITTEN,
        /** A failed attempt of a delivery already acknowledged: nothing written, the record stays delivered. */
        ALREADY_DELIVERED
    }

    private final DynamoDbClient dynamo;
    private final String table;
    private final int shards;
    private final Duration retention;

    public DeliveryRepository(DynamoDbClient dynamo, OncepayConfig config) {
        this.dynamo = dynamo;
        this.table = config.table();
        this.shards = config.sweep().shards();
        this.retention = config.events().recordRetention();
    }

    /** The index partition of {@code key}'s record. */
    public String indexPartition(DeliveryKey key) {
        return key.tenant() + "#" + key.endpoint() + "#" + Math.floorMod(key.eventId().hashCode(), shards);
    }

    /**
     * Records one attempt of {@code job} made at {@code at}, as one UpdateItem that creates the
     * record on the first attempt: attempts + 1, the status, the answer, when the next attempt is
     * due ({@link DeliveryStatus#RETRYING} only) and when it was first delivered. A delivered record
     * stays delivered: a failed attempt of it writes nothing, unless it is an operator's redelivery
     * (then its attempt and answer are recorded, the status kept).
     *
     * @param nextAttemptAt when the next attempt is due; only for {@link DeliveryStatus#RETRYING}
     * @throws software.amazon.awssdk.core.exception.SdkException the store failed: the attempt may or may not be recorded
     */
    public Recorded recordAttempt(EventDeliveryJob job, DeliveryStatus status, Instant at, String lastAnswer,
            Optional<Instant> nextAttemptAt) {
        DeliveryKey key = new DeliveryKey(job.tenant(), job.endpoint(), job.eventId());
        Map<String, String> names = new HashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        StringBuilder set = new StringBuilder("SET #attempts = if_not_exists(#attempts, :zero) + :one");
        values.put(":zero", Attr.n(0));
        values.put(":one", Attr.n(1));
        names.put("#attempts", Table.ATTEMPTS);
        setValue(set, names, values, Table.KIND, Attr.s(Table.KIND_DELIVERY));
        setValue(set, names, values, Table.TENANT, Attr.s(job.tenant()));
        setValue(set, names, values, Table.ENDPOINT_ID, Attr.s(job.endpoint()));
        setValue(set, names, values, Table.EVENT_ID, Attr.s(job.eventId()));
        setValue(set, names, values, Table.EVENT_SEQ, Attr.n(job.sequence()));
        setValue(set, names, values, Table.EVENT_AT_MS, Attr.n(job.eventAtMs()));
        setValue(set, names, values, Table.DELIVERY_ENDPOINT, Attr.s(indexPartition(key)));
        // The table's TTL removes the record this long after its event.
        setValue(set, names, values, Table.EXPIRES_AT,
                Attr.n(Instant.ofEpochMilli(job.eventAtMs()).plus(retention).getEpochSecond()));
        setValue(set, names, values, Table.DELIVERY_STATUS, Attr.s(status.name()));
        setValue(set, names, values, Table.LAST_ATTEMPT_AT, Attr.s(at.toString()));
        setValue(set, names, values, Table.LAST_ANSWER, Attr.s(lastAnswer));
        if (job.eventType() != null) {
            setValue(set, names, values, Table.EVENT_TYPE, Attr.s(job.eventType()));
        }
        if (job.objectId() != null) {
            setValue(set, names, values, Table.OBJECT_ID, Attr.s(job.objectId()));
        }
        if (job.paymentId() != null) {
            setValue(set, names, values, Table.PAYMENT_ID, Attr.s(job.paymentId()));
        }
        names.put("#next", Table.NEXT_ATTEMPT_AT);
        String remove = "";
        if (status == DeliveryStatus.RETRYING) {
            values.put(":next", Attr.s(nextAttemptAt.orElseThrow(
                    () -> new IllegalArgumentException("a retrying delivery needs its next attempt")).toString()));
            set.append(", #next = :next");
        } else {
            remove = " REMOVE #next";
        }
        String condition = null;
        if (status == DeliveryStatus.DELIVERED) {
            names.put("#deliveredAt", Table.DELIVERED_AT);
            values.put(":at", Attr.s(at.toString()));
            set.append(", #deliveredAt = if_not_exists(#deliveredAt, :at)");
        } else {
            condition = "attribute_not_exists(#status) OR #status <> :delivered";
            names.put("#status", Table.DELIVERY_STATUS);
            values.put(":delivered", Attr.s(DeliveryStatus.DELIVERED.name()));
        }
        String expression = set + remove;
        String conditionExpression = condition;
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(key.itemId())).updateExpression(expression)
                    .conditionExpression(conditionExpression).expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            return Recorded.WRITTEN;
        } catch (ConditionalCheckFailedException delivered) {
            if (job.redelivery()) {
                recordRedeliveryAttempt(key, at, lastAnswer, nextAttemptAt);
            }
            return Recorded.ALREADY_DELIVERED;
        }
    }

    /**
     * A failed attempt of an operator's redelivery of a delivered event: counted, with its answer
     * and its next attempt, while the record keeps saying delivered.
     */
    private void recordRedeliveryAttempt(DeliveryKey key, Instant at, String lastAnswer, Optional<Instant> next) {
        Map<String, String> names = new HashMap<>(Map.of("#attempts", Table.ATTEMPTS, "#lastAt", Table.LAST_ATTEMPT_AT,
                "#lastAnswer", Table.LAST_ANSWER, "#next", Table.NEXT_ATTEMPT_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":one", Attr.n(1), ":at", Attr.s(at.toString()),
                ":answer", Attr.s(lastAnswer)));
        String expression = "SET #attempts = #attempts + :one, #lastAt = :at, #lastAnswer = :answer";
        if (next.isPresent()) {
            values.put(":next", Attr.s(next.get().toString()));
            expression += ", #next = :next";
        } else {
            expression += " REMOVE #next";
        }
        String update = expression;
        dynamo.updateItem(b -> b.tableName(table).key(Attr.key(key.itemId())).updateExpression(update)
                .expressionAttributeNames(names).expressionAttributeValues(values));
    }

    /** The record of one delivery, read consistently; empty before its first attempt. */
    public Optional<DeliveryRecord> find(String tenant, String endpoint, String eventId) {
        return TableItems.readConsistently(dynamo, table, Table.deliveryItemId(tenant, endpoint, eventId))
                .map(DeliveryRepository::record);
    }

    /**
     * The records {@code keys} name (a payment's events × its tenant's endpoints), read consistently
     * with BatchGetItem; keys without a record (never attempted) are left out. Ordered by event time,
     * then event id and endpoint.
     */
    public List<DeliveryRecord> findAll(Collection<DeliveryKey> keys) {
        List<String> ids = keys.stream().map(DeliveryKey::itemId).distinct().toList();
        List<DeliveryRecord> found = new ArrayList<>(ids.size());
        for (int from = 0; from < ids.size(); from += BATCH_GET_LIMIT) {
            List<Map<String, AttributeValue>> batch = ids.subList(from, Math.min(ids.size(), from + BATCH_GET_LIMIT))
                    .stream().map(Attr::key).toList();
            Map<String, KeysAndAttributes> request = Map.of(table,
                    KeysAndAttributes.builder().keys(batch).consistentRead(true).build());
            while (!request.isEmpty()) {
                Map<String, KeysAndAttributes> asked = request;
                BatchGetItemResponse response = dynamo.batchGetItem(b -> b.requestItems(asked));
                response.responses().getOrDefault(table, List.of()).forEach(item -> found.add(record(item)));
                request = response.unprocessedKeys() == null ? Map.of() : response.unprocessedKeys();
            }
        }
        found.sort(ORDER);
        return found;
    }

    /**
     * Up to {@code limit} records of one endpoint whose event happened at or after {@code since},
     * oldest event first: every shard of the delivery index queried from {@code since}, merged.
     * The index is eventually consistent: an attempt of the last second may be missing.
     */
    public List<DeliveryRecord> since(String tenant, String endpoint, Instant since, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        List<DeliveryRecord> merged = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            String partition = tenant + "#" + endpoint + "#" + shard;
            Map<String, AttributeValue> start = null;
            int taken = 0;
            do {
                Map<String, AttributeValue> from = start;
                int pageLimit = limit - taken;
                QueryResponse page = dynamo.query(b -> b.tableName(table).indexName(Table.DELIVERY_INDEX)
                        .keyConditionExpression("#p = :p AND #at >= :since")
                        .expressionAttributeNames(Map.of("#p", Table.DELIVERY_ENDPOINT, "#at", Table.EVENT_AT_MS))
                        .expressionAttributeValues(Map.of(":p", Attr.s(partition), ":since", Attr.n(since.toEpochMilli())))
                        .scanIndexForward(true).limit(pageLimit).exclusiveStartKey(from));
                for (Map<String, AttributeValue> item : page.items()) {
                    merged.add(record(item));
                    taken++;
                }
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            } while (start != null && taken < limit);
        }
        merged.sort(ORDER);
        return List.copyOf(merged.subList(0, Math.min(limit, merged.size())));
    }

    private static final Comparator<DeliveryRecord> ORDER = Comparator.comparing(DeliveryRecord::eventAt)
            .thenComparing(DeliveryRecord::eventId).thenComparing(DeliveryRecord::endpoint);

    private static void setValue(StringBuilder set, Map<String, String> names, Map<String, AttributeValue> values,
            String attribute, AttributeValue value) {
        String placeholder = "a" + names.size();
        names.put("#" + placeholder, attribute);
        values.put(":" + placeholder, value);
        set.append(", #").append(placeholder).append(" = :").append(placeholder);
    }

    static DeliveryRecord record(Map<String, AttributeValue> item) {
        DeliveryKey key = new DeliveryKey(Attr.string(item, Table.TENANT), Attr.string(item, Table.ENDPOINT_ID),
                Attr.string(item, Table.EVENT_ID));
        return new DeliveryRecord(key, Attr.string(item, Table.EVENT_TYPE), Attr.string(item, Table.OBJECT_ID),
                Attr.string(item, Table.PAYMENT_ID), Attr.number(item, Table.EVENT_SEQ, 0),
                Instant.ofEpochMilli(Attr.number(item, Table.EVENT_AT_MS, 0)),
                DeliveryStatus.valueOf(Attr.string(item, Table.DELIVERY_STATUS)),
                (int) Attr.number(item, Table.ATTEMPTS, 0), instant(item, Table.LAST_ATTEMPT_AT),
                Attr.string(item, Table.LAST_ANSWER), Optional.ofNullable(instant(item, Table.NEXT_ATTEMPT_AT)),
                Optional.ofNullable(instant(item, Table.DELIVERED_AT)));
    }

    private static Instant instant(Map<String, AttributeValue> item, String attribute) {
        String value = Attr.string(item, attribute);
        return value == null ? null : Instant.parse(value);
    }
}
