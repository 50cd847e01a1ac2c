package dev.oncepay.webhook;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.provider.webhook.ProviderEvent;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.store.TableItems;
import dev.oncepay.webhook.JournalEntry.State;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The webhook event journal: one item per (provider, event id) in the oncepay table, keyed
 * {@code event#<provider>#<eventId>}. Two single-item conditional writes per event: the
 * {@link #receive receipt} before anything else, the {@link #markProcessed completion} after
 * the payment write.
 */
@ApplicationScoped
public class EventJournal {
    private static final String PREFIX = "event#";

    private final DynamoDbClient dynamo;
    private final String table;

    public EventJournal(DynamoDbClient dynamo, OncepayConfig config) {
        this.dynamo = dynamo;
        this.table = config.table();
    }

    /** Provider ids come from configuration and contain no {@code #}, so the key is unambiguous. */
    public static String pk(String provider, String eventId) {
        return PREFIX + provider + "#" + eventId;
    }

    /**
     * Journals the event as {@code RECEIVED}, unless it is already journaled (and not expired: expiry
     * is compared here, TTL deletes days late).
     *
     * @return empty if this call recorded it; otherwise the existing entry
     */
    public Optional<JournalEntry> receive(String provider, ProviderEvent event, Instant now, Instant expiresAt) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Table.PK, Attr.s(pk(provider, event.id())));
        item.put(Table.KIND, Attr.s(Table.KIND_EVENT));
        item.put(Table.EVENT_PROVIDER, Attr.s(provider));
        item.put(Table.EVENT_ID, Attr.s(event.id()));
        item.put(Table.EVENT_TYPE, Attr.s(event.type()));
        if (event.reference() != null) {
            item.put(Table.PAYMENT_ID, Attr.s(event.reference()));
        }
        item.put(Table.EVENT_STATE, Attr.s(State.RECEIVED.name()));
        item.put(Table.EVENT_BODY, Attr.s(event.json()));
        item.put(Table.RECEIVED_AT, Attr.s(now.toString()));
        item.put(Table.EXPIRES_AT, Attr.n(expiresAt.getEpochSecond()));
        return TableItems.claim(dynamo, table, item, now).map(EventJournal::fromItem);
    }

    /**
     * Completes a {@code RECEIVED} entry. The first completion wins: concurrent deliveries of one
     * event reach the same outcome (the payment write is recognisable, see the use case), so a
     * lost race changes nothing.
     *
     * @return {@code false} if another delivery completed it first
     */
    public boolean markProcessed(String provider, String eventId, WebhookOutcome outcome, String detail, Instant now) {
        Map<String, String> names = new HashMap<>(Map.of("#state", Table.EVENT_STATE, "#outcome", Table.EVENT_OUTCOME,
                "#processedAt", Table.PROCESSED_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":processed", Attr.s(State.PROCESSED.name()),
                ":received", Attr.s(State.RECEIVED.name()), ":outcome", Attr.s(outcome.apiName()),
                ":now", Attr.s(now.toString())));
        String update = "SET #state = :processed, #outcome = :outcome, #processedAt = :now";
        if (detail != null) {
            update += ", #detail = :detail";
            names.put("#detail", Table.EVENT_OUTCOME_DETAIL);
            values.put(":detail", Attr.s(detail));
        }
        String finalUpdate = update;
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(provider, eventId)))
                    .updateExpression(finalUpdate)
                    .conditionExpression("#state = :received")
                    .expressionAttributeNames(names).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException alreadyDone) {
            return false;
        }
    }

    /** Consistent read of an entry (for the receipt fallback, audits and tests). */
    public Optional<JournalEntry> find(String provider, String eventId) {
        return TableItems.readConsistently(dynamo, table, pk(provider, eventId)).map(EventJournal::fromItem);
    }

    static JournalEntry fromItem(Map<String, AttributeValue> item) {
        String outcome = Attr.string(item, Table.EVENT_OUTCOME);
        return new JournalEntry(
                Attr.string(item, Table.EVENT_PROVIDER),
                Attr.string(item, Table.EVENT_ID),
                Attr.string(item, Table.EVENT_TYPE),
                Attr.string(item, Table.PAYMENT_ID),
                State.valueOf(Attr.string(item, Table.EVENT_STATE)),
                outcome == null ? null : WebhookOutcome.fromApiName(outcome),
                Attr.string(item, Table.EVENT_OUTCOME_DETAIL),
                Instant.parse(Attr.string(item, Table.RECEIVED_AT)),
                Instant.ofEpochSecond(Attr.number(item, Table.EXPIRES_AT, 0)));
    }
}
