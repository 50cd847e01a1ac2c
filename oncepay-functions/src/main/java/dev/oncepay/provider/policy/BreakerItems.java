package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * One sandbox's reads and writes of the breaker items, which the breaker, the retry budget and the
 * bulkhead share: the sandbox reads its shard at most once per {@code breaker-cache} period, and
 * its own writes (which return the item) refresh that copy, so a healthy call costs at most one
 * request per period.
 *
 * <p>When the store fails, the sandbox remembers that for a cache period instead of asking a sick
 * store on every call; the breaker then decides from this sandbox's own calls ({@link LocalBreaker}).
 */
final class BreakerItems {
    private static final Logger LOG = Logger.getLogger(BreakerItems.class);
    /**
     * The longest any request about a breaker may take, SDK retries included. The table answers in
     * milliseconds; a breaker that waited the store's full timeout (3 s) would add that to every
     * call while the store is sick, so it gives up early.
     */
    static final Duration STORE_TIMEOUT = Duration.ofMillis(500);

    /** A copy of a shard as read or written at {@code readAt}; {@code item} empty: the store failed then. */
    private record Cached(Optional<BreakerShard> item, Instant readAt) {
    }

    /** The breaker's decided state and every shard, as one read saw them. */
    record Fleet(BreakerItem breaker, List<BreakerShard> shards) {
    }

    private final DynamoDbClient dynamo;
    private final String table;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final Duration cacheFor;
    private final int slots;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    BreakerItems(DynamoDbClient dynamo, String table, Clock clock, EmbeddedMetrics metrics, Duration cacheFor,
            int slots) {
        this.dynamo = dynamo;
        this.table = table;
        this.clock = clock;
        this.metrics = metrics;
        this.cacheFor = cacheFor;
        this.slots = slots;
    }

    /**
     * This sandbox's copy of a shard, read again once it is {@code breaker-cache} old; empty if
     * the store could not be read (remembered for a cache period).
     */
    Optional<BreakerShard> shard(String shardPk) {
        return shard(shardPk, cacheFor);
    }

    /**
     * This sandbox's copy of a shard, read again once it is {@code maxAge} old (a failed read is
     * still remembered for one cache period only).
     */
    Optional<BreakerShard> shard(String shardPk, Duration maxAge) {
        Cached cached = fresh(shardPk, maxAge);
        if (cached != null) {
            return cached.item();
        }
        try {
            BreakerShard shard = BreakerShard.from(dynamo.getItem(b -> b.tableName(table).key(Attr.key(shardPk))
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT))).item(), slots);
            remember(shardPk, Optional.of(shard));
            return Optional.of(shard);
        } catch (SdkException storeFailed) {
            storeFailed("read", shardPk, storeFailed);
            remember(shardPk, Optional.empty());
            return Optional.empty();
        }
    }

    /** This sandbox's copy of a shard if it is younger than {@code maxAge}, without a read. */
    Optional<BreakerShard> ifFresh(String shardPk, Duration maxAge) {
        Cached cached = fresh(shardPk, maxAge);
        return cached == null ? Optional.empty() : cached.item();
    }

    /**
     * Learns, without a read, that a shard already holds {@code decided} or a later transition (a
     * copy this sandbox meant to write was refused as old): its own copy of the shard stops
     * admitting calls the decision refuses.
     */
    void learned(String shardPk, BreakerItem decided) {
        cache.computeIfPresent(shardPk, (pk, cached) -> cached.item()
                .filter(shard -> shard.breaker().version() < decided.version())
                .map(shard -> new Cached(Optional.of(shard.withBreaker(decided.asShardCopy())), cached.readAt()))
                .orElse(cached));
    }

    /** When this sandbox last read {@code shardPk} or wrote it (the write's answer is a read); {@link Instant#MIN} if never. */
    Instant readAt(String shardPk) {
        Cached cached = cache.get(shardPk);
        return cached == null ? Instant.MIN : cached.readAt();
    }

    /** Whether this sandbox's copy of {@code shardPk} is younger than a cache period. */
    boolean isFresh(String shardPk) {
        return fresh(shardPk) != null;
    }

    /** The shard as the table holds it now (a consistent read), which becomes this sandbox's copy. */
    BreakerShard rereadShard(String shardPk) {
        BreakerShard shard = BreakerShard.from(dynamo.getItem(b -> b.tableName(table).key(Attr.key(shardPk))
                .consistentRead(true).overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT))).item(), slots);
        remember(shardPk, Optional.of(shard));
        return shard;
    }

    /** One conditional UpdateItem of a shard; the item it leaves becomes this sandbox's copy. */
    BreakerShard updateShard(String shardPk, Consumer<UpdateItemRequest.Builder> request) {
        BreakerShard shard = BreakerShard.from(update(shardPk, request), slots);
        remember(shardPk, Optional.of(shard));
        return shard;
    }

    /** The breaker's decided state now (a consistent read of its primary item). */
    BreakerItem primary(String pk) {
        return BreakerItem.from(dynamo.getItem(b -> b.tableName(table).key(Attr.key(pk)).consistentRead(true)
                .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT))).item());
    }

    /** One conditional UpdateItem of the primary item; returns what it left. */
    BreakerItem updatePrimary(String pk, Consumer<UpdateItemRequest.Builder> request) {
        return BreakerItem.from(update(pk, request));
    }

    /** One conditional UpdateItem that returns nothing (a shard's tokens, or another shard's copy). */
    void write(String pk, Consumer<UpdateItemRequest.Builder> request) {
        dynamo.updateItem(b -> {
            b.tableName(table).key(Attr.key(pk)).overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT));
            request.accept(b);
        });
    }

    /**
     * The primary item and every shard in one BatchGetItem (eventually consistent: the window is
     * an estimate anyway, and the transition it leads to is a conditional write on the primary).
     * A key the store left unprocessed is read as absent.
     */
    Fleet fleet(String pk, int shards) {
        List<String> pks = new ArrayList<>();
        pks.add(pk);
        for (int k = 0; k < shards; k++) {
            pks.add(BreakerShard.pk(pk, k));
        }
        BreakerItem breaker = BreakerItem.ABSENT;
        List<BreakerShard> found = new ArrayList<>();
        for (Map<String, AttributeValue> item : batchRead(pks)) {
            if (pk.equals(Attr.string(item, Table.PK))) {
                breaker = BreakerItem.from(item);
            } else {
                found.add(BreakerShard.from(item, slots));
            }
        }
        return new Fleet(breaker, found);
    }

    /**
     * Several shards in one BatchGetItem (at most 100; eventually consistent: a shard seen with
     * room is then taken with a conditional write, which is the truth); each becomes this
     * sandbox's copy. A shard that does not exist, or that the store left unprocessed, is missing.
     */
    Map<String, BreakerShard> shards(List<String> shardPks) {
        if (shardPks.isEmpty()) {
            return Map.of();
        }
        Map<String, BreakerShard> found = new HashMap<>();
        for (Map<String, AttributeValue> item : batchRead(shardPks)) {
            BreakerShard shard = BreakerShard.from(item, slots);
            String pk = Attr.string(item, Table.PK);
            remember(pk, Optional.of(shard));
            found.put(pk, shard);
        }
        return found;
    }

    /** The items of {@code pks} that exist, in one BatchGetItem (eventually consistent; unprocessed keys are missing). */
    private List<Map<String, AttributeValue>> batchRead(List<String> pks) {
        BatchGetItemResponse read = dynamo.batchGetItem(b -> b
                .requestItems(Map.of(table, KeysAndAttributes.builder().keys(pks.stream().map(Attr::key).toList()).build()))
                .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT)));
        return read.responses().getOrDefault(table, List.of());
    }

    /** Forgets every copy this sandbox read; the next call reads the store. Returns the breaker shards it had read. */
    Set<String> forgetReads() {
        Set<String> known = Set.copyOf(cache.keySet());
        cache.clear();
        return known;
    }

    /** Counts and logs a request about {@code pk} the store could not answer. */
    void storeFailed(String what, String pk, SdkException cause) {
        metrics.count(Metrics.BREAKER_STORE_FAILED);
        LOG.warnf("breaker store failed to %s %s; this sandbox decides from its own calls: %s", what, pk,
                cause.toString());
    }

    private Map<String, AttributeValue> update(String pk, Consumer<UpdateItemRequest.Builder> request) {
        return dynamo.updateItem(b -> {
            b.tableName(table).key(Attr.key(pk)).returnValues(ReturnValue.ALL_NEW)
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT));
            request.accept(b);
        }).attributes();
    }

    private Cached fresh(String pk) {
        return fresh(pk, cacheFor);
    }

    private Cached fresh(String pk, Duration maxAge) {
        Instant now = clock.instant();
        Cached cached = cache.get(pk);
        if (cached != null && !now.isBefore(cached.readAt())
                && now.isBefore(cached.readAt().plus(cached.item().isPresent() ? maxAge : cacheFor))) {
            return cached;
        }
        return null;
    }

    private void remember(String pk, Optional<BreakerShard> item) {
        cache.put(pk, new Cached(item, clock.instant()));
    }
}
