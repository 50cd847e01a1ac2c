package dev.oncepay.events;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.EventOutbox;
import dev.oncepay.payment.MerchantEventType;
import dev.oncepay.queue.EventDeliveryJob;
import dev.oncepay.queue.EventQueue;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The relay from an item's outbox to the event queue, two steps: send one message per event and
 * endpoint, then clear the marker. A crash between them sends again on the next relay (a
 * duplicate delivery, which the event id lets the merchant drop); a crash before the send leaves
 * the marker for the sweep. No step can lose an event.
 */
@ApplicationScoped
public class EventRelay implements EventOutbox {
    private static final Logger LOG = Logger.getLogger(EventRelay.class);

    private final MerchantEndpoints endpoints;
    private final MerchantEvents events;
    private final EventQueue queue;
    private final DynamoDbClient dynamo;
    private final String table;

    public EventRelay(MerchantEndpoints endpoints, MerchantEvents events, EventQueue queue, DynamoDbClient dynamo,
            OncepayConfig config) {
        this.endpoints = endpoints;
        this.events = events;
        this.queue = queue;
        this.dynamo = dynamo;
        this.table = config.table();
    }

    @Override
    public boolean wanted(String tenant, MerchantEventType type) {
        return endpoints.anyWants(tenant, type);
    }

    @Override
    public void relay(Map<String, AttributeValue> item) {
        try {
            relayNow(item);
        } catch (RuntimeException failed) {
            // The marker stays: the sweep relays it after the grace.
            LOG.warnf("relay of %s left to the sweep: %s", Attr.string(item, Table.PK), failed.getMessage());
        }
    }

    /**
     * Relays the item's events past its relayed sequence and clears its marker.
     *
     * @return the messages sent
     * @throws RuntimeException the queue or the store failed; the marker stays
     */
    public int relayNow(Map<String, AttributeValue> item) {
        long relayed = Attr.number(item, Table.RELAYED_SEQ, 0);
        List<EventDeliveryJob> jobs = new ArrayList<>();
        for (MerchantEvent event : events.after(item, relayed)) {
            for (MerchantEndpoint endpoint : endpoints.wanting(event.tenant(), event.type())) {
                jobs.add(EventDeliveryJob.first(event.tenant(), endpoint.id(), event.id(), event.type().wireName(),
                        event.objectId(), event.paymentId(), event.sequence(), event.at().toEpochMilli(), event.body()));
            }
        }
        if (!jobs.isEmpty()) {
            queue.sendAll(jobs);
        }
        AttributeValue history = item.get(Table.HISTORY);
        markRelayed(Attr.string(item, Table.PK), history == null || !history.hasL() ? 0 : history.l().size());
        return jobs.size();
    }

    /**
     * Records {@code upTo} as relayed and clears the marker, unless a later write appended an entry
     * meanwhile: that write marked the outbox itself and relays it, so only the position moves.
     */
    private void markRelayed(String pk, int upTo) {
        Map<String, String> names = Map.of("#relayed", Table.RELAYED_SEQ, "#history", Table.HISTORY,
                "#outboxShard", Table.OUTBOX_SHARD, "#outboxAt", Table.OUTBOX_AT);
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk))
                    .updateExpression("SET #relayed = :upTo REMOVE #outboxShard, #outboxAt")
                    .conditionExpression("size(#history) = :upTo")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(Map.of(":upTo", Attr.n(upTo))));
        } catch (ConditionalCheckFailedException later) {
            try {
                dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk))
                        .updateExpression("SET #relayed = :upTo")
                        .conditionExpression("attribute_not_exists(#relayed) OR #relayed < :upTo")
                        .expressionAttributeNames(Map.of("#relayed", Table.RELAYED_SEQ))
                        .expressionAttributeValues(Map.of(":upTo", Attr.n(upTo))));
            } catch (ConditionalCheckFailedException further) {
                // Another relay got further: nothing to record.
            }
        }
    }
}
