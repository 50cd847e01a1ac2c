package dev.oncepay.reconcile;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.Metrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.store.Attr;
import dev.oncepay.store.Table;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * The backlog gauges, read from the whole attention index ({@link Table#ATTENTION_INDEX}) rather
 * than from the payments one sweep happens to find due: how many payments wait in UNKNOWN, in
 * PENDING past the sweep's first look, and in NEEDS_REVIEW, and how old the oldest UNKNOWN and
 * stuck PENDING one is.
 *
 * <p>Per shard and status: the oldest entry (one Query, ascending, {@code Limit 1}) and, only if
 * there is one, the count ({@code Select=COUNT}, paged); NEEDS_REVIEW only its count. An empty
 * index costs three queries per shard. Eventually consistent, like every GSI read: a gauge, not a ledger.
 */
@ApplicationScoped
public class Backlog {
    private static final Logger LOG = Logger.getLogger(Backlog.class);

    private final DynamoDbClient dynamo;
    private final EmbeddedMetrics metrics;
    private final Clock clock;
    private final String table;
    private final int shards;
    /** When the sweep first looks at a PENDING payment (its charge run's lease, twice, after creation). */
    private final Duration pendingAfter;

    public Backlog(DynamoDbClient dynamo, EmbeddedMetrics metrics, Clock clock, OncepayConfig config) {
        this.dynamo = dynamo;
        this.metrics = metrics;
        this.clock = clock;
        this.table = config.table();
        this.shards = config.sweep().shards();
        this.pendingAfter = config.idempotency().lease().multipliedBy(2);
    }

    /** What one status's partitions hold: how many, and the creation of the oldest ({@code null} if none). */
    record Reading(long count, Instant oldest) {
        Duration ageAt(Instant now) {
            return oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
        }
    }

    /**
     * Reads the index and emits the five gauges. A failed read emits none (a missing point, which
     * the alarms treat as missing, rather than a zero that would clear them) and leaves the sweep alone.
     */
    public void emit() {
        Instant now = clock.instant();
        try {
            Reading unknown = read(PaymentStatus.UNKNOWN, null, true);
            Reading pending = read(PaymentStatus.PENDING, now.minus(pendingAfter), true);
            Reading review = read(PaymentStatus.NEEDS_REVIEW, null, false);
            metrics.gauge(Metrics.UNKNOWN_BACKLOG, unknown.count(), "Count");
            metrics.gauge(Metrics.UNKNOWN_OLDEST_AGE, unknown.ageAt(now).toSeconds(), "Seconds");
            metrics.gauge(Metrics.PENDING_BACKLOG, pending.count(), "Count");
            metrics.gauge(Metrics.PENDING_OLDEST_AGE, pending.ageAt(now).toSeconds(), "Seconds");
            metrics.gauge(Metrics.NEEDS_REVIEW_BACKLOG, review.count(), "Count");
        } catch (SdkException e) {
            LOG.warnf("backlog gauges not emitted: the attention index could not be read: %s: %s",
                    e.getClass().getSimpleName(), e.getMessage());
        }
    }

    /** Every shard's entries of {@code status}, created before {@code createdBefore} if given. */
    Reading read(PaymentStatus status, Instant createdBefore, boolean withOldest) {
        long count = 0;
        Instant oldest = null;
        for (int shard = 0; shard < shards; shard++) {
            // Table.ATTENTION_KEY's format: <STATUS>#<shard>, the shard as the sweep's.
            String partition = status.name() + "#" + shard;
            if (withOldest) {
                Optional<Instant> first = oldestIn(partition, createdBefore);
                if (first.isEmpty()) {
                    continue; // an empty partition has nothing to count
                }
                oldest = oldest == null || first.get().isBefore(oldest) ? first.get() : oldest;
            }
            count += countIn(partition, createdBefore);
        }
        return new Reading(count, oldest);
    }

    private Optional<Instant> oldestIn(String partition, Instant createdBefore) {
        List<Map<String, AttributeValue>> items = dynamo.query(query(partition, createdBefore).toBuilder()
                .scanIndexForward(true).limit(1).build()).items();
        return items.isEmpty() ? Optional.empty()
                : Optional.of(Instant.ofEpochMilli(Attr.number(items.get(0), Table.CREATED_AT_MS, 0)));
    }

    private long countIn(String partition, Instant createdBefore) {
        long count = 0;
        Map<String, AttributeValue> from = null;
        do {
            QueryRequest.Builder page = query(partition, createdBefore).toBuilder().select(Select.COUNT);
            if (from != null) {
                page.exclusiveStartKey(from);
            }
            QueryResponse response = dynamo.query(page.build());
            count += response.count();
            from = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty()
                    ? response.lastEvaluatedKey() : null;
        } while (from != null);
        return count;
    }

    private QueryRequest query(String partition, Instant createdBefore) {
        Map<String, String> names = new HashMap<>(Map.of("#key", Table.ATTENTION_KEY));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":key", Attr.s(partition)));
        String condition = "#key = :key";
        if (createdBefore != null) {
            condition += " AND #created < :before";
            names.put("#created", Table.CREATED_AT_MS);
            values.put(":before", Attr.n(createdBefore.toEpochMilli()));
        }
        return QueryRequest.builder().tableName(table).indexName(Table.ATTENTION_INDEX)
                .keyConditionExpression(condition)
                .expressionAttributeNames(names).expressionAttributeValues(values).build();
    }
}
