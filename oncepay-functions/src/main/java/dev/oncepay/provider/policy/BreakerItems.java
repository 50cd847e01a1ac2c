package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * One sandbox's reads and writes of the breaker items, which the breaker, the retry budget and the
 * bulkhead share: a sandbox reads an item at most once per {@code breaker-cache} period (its own
 * writes refresh that copy), so a healthy call costs no request at all.
 *
 * <p>Fleet protection never stops a healthy provider being called: when its own storage fails
 * the call is admitted (fail open), {@link Metrics#BREAKER_STORE_FAILED} counted and logged.
 */
final class BreakerItems {
    private static final Logger LOG = Logger.getLogger(BreakerItems.class);
    /**
     * The longest any request about a breaker may take, SDK retries included. The table answers in
     * milliseconds; a breaker that waited the store's full timeout (3 s) would add that to every
     * call while the store is sick, so it gives up early and fails open.
     */
    static final Duration STORE_TIMEOUT = Duration.ofMillis(500);

    private record Cached(BreakerItem item, Instant readAt) {
    }

    private final DynamoDbClient dynamo;
    private final String table;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final Duration cacheFor;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    BreakerItems(DynamoDbClient dynamo, String table, Clock clock, EmbeddedMetrics metrics, Duration cacheFor) {
        this.dynamo = dynamo;
        this.table = table;
        this.clock = clock;
        this.metrics = metrics;
        this.cacheFor = cacheFor;
    }

    /** This sandbox's copy of the breaker, read again once it is {@code breaker-cache} old. */
    BreakerItem current(String pk) {
        Instant now = clock.instant();
        Cached cached = cache.get(pk);
        if (cached != null && !now.isBefore(cached.readAt()) && now.isBefore(cached.readAt().plus(cacheFor))) {
            return cached.item();
        }
        try {
            return reread(pk);
        } catch (SdkException storeFailed) {
            storeFailed("read", pk, storeFailed);
            // Fail open, and trust that for a cache period: a sick store is not asked on every call.
            cache.put(pk, new Cached(BreakerItem.ABSENT, now));
            return BreakerItem.ABSENT;
        }
    }

    /** The item as the table holds it now (a consistent read), which becomes this sandbox's copy. */
    BreakerItem reread(String pk) {
        BreakerItem item = BreakerItem.from(dynamo.getItem(b -> b.tableName(table).key(Attr.key(pk))
                .consistentRead(true).overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT))).item());
        cache.put(pk, new Cached(item, clock.instant()));
        return item;
    }

    /** One conditional UpdateItem; the item it leaves becomes this sandbox's copy. */
    BreakerItem update(String pk, Consumer<UpdateItemRequest.Builder> request) {
        Map<String, AttributeValue> after = dynamo.updateItem(b -> {
            b.tableName(table).key(Attr.key(pk)).returnValues(ReturnValue.ALL_NEW)
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT));
            request.accept(b);
        }).attributes();
        BreakerItem item = BreakerItem.from(after);
        cache.put(pk, new Cached(item, clock.instant()));
        return item;
    }

    /**
     * One conditional UpdateItem that returns nothing: it changes only what the copy does not hold
     * (the retry tokens), so the copy stays as it is.
     */
    void write(String pk, Consumer<UpdateItemRequest.Builder> request) {
        dynamo.updateItem(b -> {
            b.tableName(table).key(Attr.key(pk)).overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT));
            request.accept(b);
        });
    }

    /** Forgets every copy this sandbox read; the next call reads the store. Returns the breakers it had read. */
    Set<String> forgetReads() {
        Set<String> known = Set.copyOf(cache.keySet());
        cache.clear();
        return known;
    }

    /** Counts and logs a request about {@code pk} the store could not answer; the call goes on regardless. */
    void storeFailed(String what, String pk, SdkException cause) {
        metrics.count(Metrics.BREAKER_STORE_FAILED);
        LOG.warnf("breaker store failed to %s %s; failing open (calls go through): %s", what, pk, cause.toString());
    }
}
