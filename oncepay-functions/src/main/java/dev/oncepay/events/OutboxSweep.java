package dev.oncepay.events;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.Outbox;
import dev.oncepay.queue.EventQueue;
import dev.oncepay.store.TableItems;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Relays what no writer's relay finished: items still marked past the grace, found in the outbox
 * index shard by shard. Emits {@link Metrics#OUTBOX_BACKLOG}, the marked items it found, so a queue
 * that refuses sends is alarmed while no event is lost.
 */
@ApplicationScoped
public class OutboxSweep {
    private static final Logger LOG = Logger.getLogger(OutboxSweep.class);
    /** Items relayed per shard and sweep at most: a backlog drains over a few sweeps, within the time budget. */
    static final int BATCH = 100;

    private final DynamoDbClient dynamo;
    private final EventRelay relay;
    private final EventQueue queue;
    private final EmbeddedMetrics metrics;
    private final Clock clock;
    private final String table;
    private final int shards;
    private final Duration grace;

    public OutboxSweep(DynamoDbClient dynamo, EventRelay relay, EventQueue queue, EmbeddedMetrics metrics, Clock clock,
            OncepayConfig config) {
        this.dynamo = dynamo;
        this.relay = relay;
        this.queue = queue;
        this.metrics = metrics;
        this.clock = clock;
        this.table = config.table();
        this.shards = config.sweep().shards();
        this.grace = config.events().relayGrace();
    }

    /** What one sweep of the outbox found and did. */
    public record Relayed(int found, int relayed, int failed) {
    }

    /** Relays every marked item older than the grace, until {@code deadline}. */
    public Relayed sweep(Instant deadline) {
        if (!queue.configured()) {
            return new Relayed(0, 0, 0);
        }
        long before = clock.instant().minus(grace).toEpochMilli();
        int found = 0;
        int relayed = 0;
        int failed = 0;
        for (int shard = 0; shard < shards; shard++) {
            List<Map<String, AttributeValue>> keys;
            try {
                keys = marked(shard, before);
            } catch (RuntimeException e) {
                failed++;
                LOG.warnf("outbox shard %d not read; left for the next sweep: %s", shard, e.getMessage());
                continue;
            }
            found += keys.size();
            for (Map<String, AttributeValue> key : keys) {
                if (!clock.instant().isBefore(deadline)) {
                    break;
                }
                String pk = Attr.string(key, Table.PK);
                try {
                    // Consistent: the index lags, and the item may have been relayed meanwhile.
                    var item = TableItems.readConsistently(dynamo, table, pk);
                    if (item.isPresent() && item.get().containsKey(Table.OUTBOX_SHARD)) {
                        relay.relayNow(item.get());
                        relayed++;
                    }
                } catch (RuntimeException e) {
                    failed++;
                    LOG.warnf("outbox relay of %s failed; left for the next sweep: %s", pk, e.getMessage());
                }
            }
        }
        metrics.gauge(Metrics.OUTBOX_BACKLOG, found, "Count");
        if (found > 0) {
            LOG.infof("outbox sweep: found=%d relayed=%d failed=%d", found, relayed, failed);
        }
        return new Relayed(found, relayed, failed);
    }

    private List<Map<String, AttributeValue>> marked(int shard, long before) {
        return dynamo.query(b -> b.tableName(table).indexName(Table.OUTBOX_INDEX)
                .keyConditionExpression("#shard = :shard AND #at <= :before")
                .expressionAttributeNames(Map.of("#shard", Table.OUTBOX_SHARD, "#at", Table.OUTBOX_AT))
                .expressionAttributeValues(Map.of(":shard", Attr.s(Outbox.partition(shard)), ":before", Attr.n(before)))
                .limit(BATCH)).items();
    }
}
