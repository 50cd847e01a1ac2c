package dev.oncepay.testkit.model;

import dev.oncepay.contract.Table;
import dev.oncepay.testkit.ItemSize;
import dev.oncepay.testkit.model.Expressions.Action;
import dev.oncepay.testkit.model.Expressions.AddAction;
import dev.oncepay.testkit.model.Expressions.Condition;
import dev.oncepay.testkit.model.Expressions.Context;
import dev.oncepay.testkit.model.Expressions.Path;
import dev.oncepay.testkit.model.Expressions.RemoveAction;
import dev.oncepay.testkit.model.Expressions.SetAction;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * One DynamoDB table (string partition key {@link Table#PK}, no sort key) in memory, answering the
 * item requests the fleet protection makes as DynamoDB answers them, limits included: expressions of
 * at most 4 KB, items of at most 400 KB, and each partition's throughput on a virtual clock.
 *
 * <p>Throughput: every item is its own partition (the hot-key model after adaptive capacity has
 * isolated a hot item), serving 3,000 read units and 1,000 write units per second of {@code clock}.
 * A consistent read costs 1 unit per started 4 KB, an eventually consistent one half that; a write
 * 1 unit per started KB of the larger of the item before and after, and a failed conditional write
 * costs its units too. A request the partition has no units left for in the current second is
 * refused with {@link ProvisionedThroughputExceededException} and costs nothing. The model does not
 * retry as the SDK would: each refusal reaches the caller at once.
 *
 * <p>Unsupported requests and expression forms throw {@link UnsupportedOperationException}, never a
 * made-up answer. Thread-safe (one lock), though simulations call it from one thread.
 */
public final class DynamoDbModel implements DynamoDbClient {
    public static final int READ_UNITS_PER_SECOND = 3000;
    public static final int WRITE_UNITS_PER_SECOND = 1000;
    public static final int MAX_ITEM_BYTES = 400 * 1024;
    private static final int MAX_BATCH_GET_KEYS = 100;

    private final String table;
    private final Clock clock;
    /** Items by partition key; a TreeMap so that whatever iterates them does so in one order. */
    private final Map<String, Map<String, AttributeValue>> items = new TreeMap<>();
    /** Each item's size as DynamoDB bills it, kept with the item: large items are sized once, not per request. */
    private final Map<String, Integer> sizes = new HashMap<>();
    private final Map<String, Partition> partitions = new TreeMap<>();
    private final Map<String, Long> requests = new TreeMap<>();

    public DynamoDbModel(String table, Clock clock) {
        this.table = table;
        this.clock = clock;
    }

    // --- the DynamoDbClient operations ---------------------------------------------------------------

    @Override
    public synchronized GetItemResponse getItem(GetItemRequest request) {
        counted("GetItem");
        requireTable(request.tableName());
        unsupportedIf(request.projectionExpression() != null || request.hasAttributesToGet(), "projections");
        String pk = keyOf(request.key());
        Map<String, AttributeValue> item = items.get(pk);
        partition(pk).read(second(), readHalfUnits(pk, Boolean.TRUE.equals(request.consistentRead())));
        GetItemResponse.Builder response = GetItemResponse.builder();
        if (item != null) {
            response.item(item);
        }
        return response.build();
    }

    @Override
    public synchronized BatchGetItemResponse batchGetItem(BatchGetItemRequest request) {
        counted("BatchGetItem");
        int keys = request.requestItems().values().stream().mapToInt(k -> k.keys().size()).sum();
        if (keys > MAX_BATCH_GET_KEYS) {
            throw validation("Too many items requested for the BatchGetItem call");
        }
        Map<String, List<Map<String, AttributeValue>>> found = new LinkedHashMap<>();
        Map<String, KeysAndAttributes> unprocessed = new LinkedHashMap<>();
        int served = 0;
        for (Map.Entry<String, KeysAndAttributes> entry : request.requestItems().entrySet()) {
            requireTable(entry.getKey());
            KeysAndAttributes asked = entry.getValue();
            unsupportedIf(asked.projectionExpression() != null || asked.hasAttributesToGet(), "projections");
            Set<String> seen = new HashSet<>();
            for (Map<String, AttributeValue> key : asked.keys()) {
                if (!seen.add(keyOf(key))) {
                    throw validation("Provided list of item keys contains duplicates");
                }
            }
            List<Map<String, AttributeValue>> itemsFound = new ArrayList<>();
            List<Map<String, AttributeValue>> notServed = new ArrayList<>();
            for (Map<String, AttributeValue> key : asked.keys()) {
                String pk = keyOf(key);
                Map<String, AttributeValue> item = items.get(pk);
                try {
                    partition(pk).read(second(), readHalfUnits(pk, Boolean.TRUE.equals(asked.consistentRead())));
                    served++;
                    if (item != null) {
                        itemsFound.add(item);
                    }
                } catch (ProvisionedThroughputExceededException hot) {
                    notServed.add(key);
                }
            }
            found.put(entry.getKey(), itemsFound);
            if (!notServed.isEmpty()) {
                unprocessed.put(entry.getKey(), asked.toBuilder().keys(notServed).build());
            }
        }
        // DynamoDB answers with unprocessed keys while it served some; refusing every key is an error.
        if (served == 0 && keys > 0) {
            throw throughputExceeded();
        }
        return BatchGetItemResponse.builder().responses(found).unprocessedKeys(unprocessed).build();
    }

    @Override
    public synchronized PutItemResponse putItem(PutItemRequest request) {
        counted("PutItem");
        requireTable(request.tableName());
        String pk = keyOf(Map.of(Table.PK, request.item().getOrDefault(Table.PK, AttributeValue.fromNul(true))));
        Condition condition = parse(request.conditionExpression(), null, request.expressionAttributeNames(),
                request.expressionAttributeValues()).condition();
        ReturnValue returns = returnValues(request.returnValues(), ReturnValue.NONE, ReturnValue.ALL_OLD);
        Map<String, AttributeValue> after = Map.copyOf(request.item());
        int afterBytes = ItemSize.bytes(after);
        if (afterBytes > MAX_ITEM_BYTES) {
            throw validation("Item size has exceeded the maximum allowed size");
        }
        Map<String, AttributeValue> before = items.get(pk);
        write(pk, condition == null || Expressions.holds(condition, before == null ? Map.of() : before), after,
                afterBytes);
        return PutItemResponse.builder().attributes(returns == ReturnValue.ALL_OLD ? before : null).build();
    }

    @Override
    public synchronized DeleteItemResponse deleteItem(DeleteItemRequest request) {
        counted("DeleteItem");
        requireTable(request.tableName());
        String pk = keyOf(request.key());
        Condition condition = parse(request.conditionExpression(), null, request.expressionAttributeNames(),
                request.expressionAttributeValues()).condition();
        ReturnValue returns = returnValues(request.returnValues(), ReturnValue.NONE, ReturnValue.ALL_OLD);
        Map<String, AttributeValue> before = items.get(pk);
        write(pk, condition == null || Expressions.holds(condition, before == null ? Map.of() : before), null, 0);
        return DeleteItemResponse.builder().attributes(returns == ReturnValue.ALL_OLD ? before : null).build();
    }

    @Override
    public synchronized UpdateItemResponse updateItem(UpdateItemRequest request) {
        counted("UpdateItem");
        requireTable(request.tableName());
        unsupportedIf(request.hasAttributeUpdates() || request.hasExpected(), "the legacy AttributeUpdates/Expected");
        String pk = keyOf(request.key());
        Parsed parsed = parse(request.conditionExpression(), request.updateExpression(),
                request.expressionAttributeNames(), request.expressionAttributeValues());
        for (Action action : parsed.actions()) {
            if (action.path().top().equals(Table.PK)) {
                throw validation("One or more parameter values were invalid: Cannot update attribute " + Table.PK
                        + ". This attribute is part of the key");
            }
        }
        ReturnValue returns = returnValues(request.returnValues(), ReturnValue.values());
        Map<String, AttributeValue> before = items.get(pk);
        Map<String, AttributeValue> old = before == null ? Map.of() : before;
        Map<String, AttributeValue> after = null;
        int afterBytes = 0;
        boolean holds = parsed.condition() == null || Expressions.holds(parsed.condition(), old);
        if (holds) {
            after = applied(parsed.actions(), request.key(), old);
            afterBytes = ItemSize.bytes(after);
            if (afterBytes > MAX_ITEM_BYTES) {
                throw validation("Item size to update has exceeded the maximum allowed size");
            }
        }
        write(pk, holds, after, afterBytes);
        List<Path> paths = parsed.actions().stream().map(Action::path).toList();
        Map<String, AttributeValue> attributes = switch (returns) {
            case ALL_NEW -> after;
            case ALL_OLD -> before;
            case UPDATED_NEW -> projected(paths, after);
            case UPDATED_OLD -> before == null ? null : projected(paths, before);
            default -> null;
        };
        return UpdateItemResponse.builder().attributes(attributes).build();
    }

    @Override
    public String serviceName() {
        return SERVICE_NAME;
    }

    @Override
    public void close() {
        // nothing held
    }

    // --- what the model observed ---------------------------------------------------------------------

    /** The item under {@code pk} as the table holds it now, read without cost. */
    public synchronized Optional<Map<String, AttributeValue>> item(String pk) {
        return Optional.ofNullable(items.get(pk));
    }

    /** Every item's load so far, hottest first (highest peak share of a partition's reads or writes). */
    public synchronized List<ItemLoad> loads() {
        return partitions.entrySet().stream().map(e -> e.getValue().load(e.getKey()))
                .sorted(Comparator.comparingDouble(DynamoDbModel::peakShare).reversed()
                        .thenComparing(ItemLoad::pk))
                .toList();
    }

    public synchronized Optional<ItemLoad> load(String pk) {
        Partition partition = partitions.get(pk);
        return partition == null ? Optional.empty() : Optional.of(partition.load(pk));
    }

    public Optional<ItemLoad> hottest() {
        return loads().stream().findFirst();
    }

    /** The peak second's share of a partition's capacity: 1.0 is the item at its limit. */
    public static double peakShare(ItemLoad load) {
        return Math.max(load.maxReadUnitsPerSecond() / READ_UNITS_PER_SECOND,
                (double) load.maxWriteUnitsPerSecond() / WRITE_UNITS_PER_SECOND);
    }

    /** Requests refused for throughput, on every item. */
    public synchronized long throttled() {
        return partitions.values().stream().mapToLong(p -> p.throttledReads + p.throttledWrites).sum();
    }

    /** Requests received, by operation name ({@code GetItem}, {@code UpdateItem}…), throttled and failed ones included. */
    public synchronized Map<String, Long> requests() {
        return Map.copyOf(requests);
    }

    public synchronized long requestCount() {
        return requests.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Forgets loads and request counts (the items stay): a measurement starts afresh. */
    public synchronized void resetLoads() {
        partitions.clear();
        requests.clear();
    }

    // --- requests ----------------------------------------------------------------------------------

    private record Parsed(Condition condition, List<Action> actions) {
    }

    private Parsed parse(String condition, String update, Map<String, String> names,
            Map<String, AttributeValue> values) {
        Expressions.requireWithinLimit("UpdateExpression", update);
        Expressions.requireWithinLimit("ConditionExpression", condition);
        Context context = new Context(names, values);
        List<Action> actions = update == null ? List.of() : Expressions.update(update, context);
        Condition parsed = condition == null ? null : Expressions.condition(condition, context);
        context.requireAllUsed();
        return new Parsed(parsed, actions);
    }

    /**
     * One conditional write of {@code pk}: if its condition {@code holds}, {@code after} (of
     * {@code afterBytes}) replaces the item ({@code null}: deletes it). Either way it costs the
     * write units of the larger of the two, if the partition has them this second.
     */
    private void write(String pk, boolean holds, Map<String, AttributeValue> after, int afterBytes) {
        int bytes = Math.max(sizes.getOrDefault(pk, 0), holds && after != null ? afterBytes : 0);
        partition(pk).write(second(), ItemSize.writeUnits(bytes));
        if (!holds) {
            throw conditionFailed();
        }
        if (after == null) {
            items.remove(pk);
            sizes.remove(pk);
        } else {
            items.put(pk, Map.copyOf(after));
            sizes.put(pk, afterBytes);
        }
    }

    /** The item after {@code actions}; every operand reads the item as it was before them. */
    private static Map<String, AttributeValue> applied(List<Action> actions, Map<String, AttributeValue> key,
            Map<String, AttributeValue> old) {
        List<AttributeValue> values = new ArrayList<>();
        for (Action action : actions) {
            values.add(action instanceof SetAction set ? Expressions.operand(set.value(), old) : null);
        }
        Map<String, AttributeValue> item = new LinkedHashMap<>(old.isEmpty() ? key : old);
        for (int i = 0; i < actions.size(); i++) {
            Action action = actions.get(i);
            if (action instanceof SetAction) {
                if (values.get(i) == null) {
                    throw validation("The provided expression refers to an attribute that does not exist in the item");
                }
                put(item, action.path().names(), values.get(i));
            } else if (action instanceof AddAction add) {
                AttributeValue there = Expressions.resolve(add.path(), item);
                if (there != null && there.n() == null) {
                    throw validation("An operand in the update expression has an incorrect data type");
                }
                BigDecimal sum = new BigDecimal(add.value().n()).add(there == null ? BigDecimal.ZERO
                        : new BigDecimal(there.n()));
                put(item, add.path().names(), Expressions.number(sum));
            } else if (action instanceof RemoveAction) {
                put(item, action.path().names(), null);
            }
        }
        return item;
    }

    /** Sets ({@code value}) or removes ({@code null}) the attribute at {@code path}; its parent map must exist. */
    private static void put(Map<String, AttributeValue> map, List<String> path, AttributeValue value) {
        String name = path.get(0);
        if (path.size() == 1) {
            if (value == null) {
                map.remove(name);
            } else {
                map.put(name, value);
            }
            return;
        }
        AttributeValue child = map.get(name);
        if (child == null || !child.hasM()) {
            throw validation("The document path provided in the update expression is invalid for update");
        }
        Map<String, AttributeValue> nested = new LinkedHashMap<>(child.m());
        put(nested, path.subList(1, path.size()), value);
        map.put(name, AttributeValue.fromM(nested));
    }

    /** The parts of {@code item} at {@code paths}, nested as in the item (ReturnValues UPDATED_*). */
    private static Map<String, AttributeValue> projected(List<Path> paths, Map<String, AttributeValue> item) {
        Map<String, AttributeValue> projected = new LinkedHashMap<>();
        for (Path path : paths) {
            AttributeValue value = Expressions.resolve(path, item);
            if (value == null) {
                continue;
            }
            List<String> names = path.names();
            for (int depth = names.size() - 1; depth > 0; depth--) {
                value = AttributeValue.fromM(Map.of(names.get(depth), value));
            }
            AttributeValue existing = projected.get(names.get(0));
            projected.put(names.get(0), existing != null && existing.hasM() && value.hasM() ? merged(existing, value)
                    : value);
        }
        return projected;
    }

    private static AttributeValue merged(AttributeValue a, AttributeValue b) {
        Map<String, AttributeValue> m = new LinkedHashMap<>(a.m());
        b.m().forEach((k, v) -> m.merge(k, v, (x, y) -> x.hasM() && y.hasM() ? merged(x, y) : y));
        return AttributeValue.fromM(m);
    }

    private static ReturnValue returnValues(ReturnValue asked, ReturnValue... allowed) {
        ReturnValue value = asked == null ? ReturnValue.NONE : asked;
        if (!List.of(allowed).contains(value)) {
            throw validation("ReturnValues can only be ALL_OLD or NONE");
        }
        return value;
    }

    private int readHalfUnits(String pk, boolean consistent) {
        int units = ItemSize.consistentReadUnits(sizes.getOrDefault(pk, 0));
        return consistent ? 2 * units : units;
    }

    private void requireTable(String name) {
        if (!table.equals(name)) {
            throw (ResourceNotFoundException) ResourceNotFoundException.builder()
                    .message("Requested resource not found").statusCode(400)
                    .awsErrorDetails(error("ResourceNotFoundException", "Requested resource not found")).build();
        }
    }

    private static String keyOf(Map<String, AttributeValue> key) {
        AttributeValue pk = key.get(Table.PK);
        if (key.size() != 1 || pk == null || pk.s() == null || pk.s().isEmpty()) {
            throw validation("The provided key element does not match the schema");
        }
        return pk.s();
    }

    private static void unsupportedIf(boolean used, String what) {
        if (used) {
            throw new UnsupportedOperationException("the model does not support " + what);
        }
    }

    private void counted(String operation) {
        requests.merge(operation, 1L, Long::sum);
    }

    private long second() {
        return Math.floorDiv(clock.millis(), 1000);
    }

    private Partition partition(String pk) {
        return partitions.computeIfAbsent(pk, k -> new Partition());
    }

    // --- errors as DynamoDB sends them ---------------------------------------------------------------

    static DynamoDbException validation(String message) {
        return (DynamoDbException) DynamoDbException.builder().message(message).statusCode(400)
                .awsErrorDetails(error("ValidationException", message)).build();
    }

    private static ConditionalCheckFailedException conditionFailed() {
        String message = "The conditional request failed";
        return (ConditionalCheckFailedException) ConditionalCheckFailedException.builder().message(message)
                .statusCode(400).awsErrorDetails(error("ConditionalCheckFailedException", message)).build();
    }

    static ProvisionedThroughputExceededException throughputExceeded() {
        String message = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically"
                + " scaling your table or index so please try again shortly. If exceptions persist, check if you have"
                + " a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html";
        return (ProvisionedThroughputExceededException) ProvisionedThroughputExceededException.builder()
                .message(message).statusCode(400)
                .awsErrorDetails(error("ProvisionedThroughputExceededException", message)).build();
    }

    private static AwsErrorDetails error(String code, String message) {
        return AwsErrorDetails.builder().errorCode(code).errorMessage(message).serviceName("DynamoDb").build();
    }

    // --- one partition's throughput ------------------------------------------------------------------

    /** One item's partition: this second's units against its limits, and what it served so far. */
    private static final class Partition {
        private long second = Long.MIN_VALUE;
        private long firstSecond = Long.MIN_VALUE;
        /** Reads in half units: an eventually consistent read of 4 KB costs one. */
        private long readHalfUnitsNow;
        private long readsNow;
        private long writeUnitsNow;
        private long writesNow;
        private long reads;
        private long readHalfUnits;
        private long writes;
        private long writeUnits;
        private long maxReads;
        private long maxReadHalfUnits;
        private long maxWrites;
        private long maxWriteUnits;
        private long throttledReads;
        private long throttledWrites;

        void read(long now, int halfUnits) {
            roll(now);
            if (readHalfUnitsNow + halfUnits > 2L * READ_UNITS_PER_SECOND) {
                throttledReads++;
                throw throughputExceeded();
            }
            readHalfUnitsNow += halfUnits;
            readsNow++;
            reads++;
            readHalfUnits += halfUnits;
            maxReads = Math.max(maxReads, readsNow);
            maxReadHalfUnits = Math.max(maxReadHalfUnits, readHalfUnitsNow);
        }

        void write(long now, int units) {
            roll(now);
            if (writeUnitsNow + units > WRITE_UNITS_PER_SECOND) {
                throttledWrites++;
                throw throughputExceeded();
            }
            writeUnitsNow += units;
            writesNow++;
            writes++;
            writeUnits += units;
            maxWrites = Math.max(maxWrites, writesNow);
            maxWriteUnits = Math.max(maxWriteUnits, writeUnitsNow);
        }

        private void roll(long now) {
            if (firstSecond == Long.MIN_VALUE) {
                firstSecond = now;
            }
            if (now != second) {
                second = now;
                readHalfUnitsNow = 0;
                readsNow = 0;
                writeUnitsNow = 0;
                writesNow = 0;
            }
        }

        ItemLoad load(String pk) {
            long seconds = firstSecond == Long.MIN_VALUE ? 0 : second - firstSecond + 1;
            return new ItemLoad(pk, reads, readHalfUnits / 2.0, writes, writeUnits, maxReads, maxReadHalfUnits / 2.0,
                    maxWrites, maxWriteUnits, throttledReads, throttledWrites, seconds);
        }
    }
}
