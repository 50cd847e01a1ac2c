package dev.oncepay.payment;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Metrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.store.TableItems;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * Payment items in DynamoDB. Every write is a single conditional write on one item, so racing
 * writers (a charge retry, a webhook, a sweep) can never move a payment backwards.
 */
@ApplicationScoped
public class PaymentRepository {
    private static final String PREFIX = "payment#";

    private final DynamoDbClient dynamo;
    private final EmbeddedMetrics metrics;
    private final String table;
    private final int shards;
    /** What a payment item without {@code provider} reads as: the default account. */
    private final ProviderAccount legacyAccount;
    private final Duration lease;
    private final EventOutbox outbox;

    public PaymentRepository(DynamoDbClient dynamo, OncepayConfig config, EmbeddedMetrics metrics, EventOutbox outbox) {
        this.dynamo = dynamo;
        this.metrics = metrics;
        this.outbox = outbox;
        this.table = config.table();
        this.shards = config.sweep().shards();
        // The default account (oncepay.provider.id and .account).
        this.legacyAccount = new ProviderAccount(config.provider().id(), config.provider().account());
        this.lease = config.idempotency().lease();
    }

    public static String pk(String paymentId) {
        return PREFIX + paymentId;
    }

    /** Records a new PENDING payment; {@code false} if it already exists (an earlier run made it). */
    public boolean createPending(Payment payment, Instant nextCheckAt) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Table.PK, Attr.s(pk(payment.id())));
        item.put(Table.KIND, Attr.s(Table.KIND_PAYMENT));
        item.put(Table.TENANT, Attr.s(payment.tenant()));
        item.put(Table.STATUS, Attr.s(PaymentStatus.PENDING.name()));
        item.put(Table.AMOUNT, Attr.n(payment.amount()));
        item.put(Table.CURRENCY, Attr.s(payment.currency()));
        item.put(Table.REFERENCE, Attr.s(payment.reference()));
        putIfPresent(item, Table.DESCRIPTION, payment.description());
        item.put(Table.CREATED_AT, Attr.s(payment.createdAt().toString()));
        item.put(Table.UPDATED_AT, Attr.s(payment.updatedAt().toString()));
        item.put(Table.LEASE_EPOCH, Attr.n(payment.leaseEpoch()));
        item.put(Table.LEASE_EXPIRES_AT, Attr.n(payment.leaseExpiresAt().toEpochMilli()));
        item.put(Table.PROVIDER, Attr.s(payment.providerAccount().provider()));
        item.put(Table.PROVIDER_ACCOUNT, Attr.s(payment.providerAccount().account()));
        item.put(Table.CHECK_ATTEMPTS, Attr.n(0));
        putIfPresent(item, Table.PAYMENT_METHOD, payment.instrument().paymentMethod());
        putIfPresent(item, Table.CUSTOMER, payment.instrument().customer());
        if (payment.queuedUntil() != null) {
            item.put(Table.QUEUED_UNTIL, Attr.n(payment.queuedUntil().toEpochMilli()));
        }
        // Listed in the sweep index from the start: if this run dies, reconcile finds the payment.
        item.put(Table.SWEEP_SHARD, Attr.s(shardOf(payment.id())));
        item.put(Table.NEXT_CHECK_AT, Attr.n(nextCheckAt.toEpochMilli()));
        item.put(Table.CREATED_AT_MS, Attr.n(payment.createdAt().toEpochMilli()));
        item.put(Table.ATTENTION_KEY, Attr.s(attentionKey(PaymentStatus.PENDING, payment.id())));
        item.put(Table.HISTORY, AttributeValue.fromL(List.of(entry(new HistoryEntry(payment.createdAt(), null,
                PaymentStatus.PENDING, Actor.chargeRun(payment.leaseEpoch()), payment.queuedUntil() == null
                        ? "charge request accepted" : "charge request accepted; its charge queued until "
                                + payment.queuedUntil(), null, null), null))));
        return TableItems.putIfAbsent(dynamo, table, item);
    }

    /** Consistent read: the answer a client gets must reflect every acknowledged write. */
    public Optional<Payment> find(String paymentId) {
        return TableItems.readConsistently(dynamo, table, pk(paymentId)).map(this::fromItem);
    }

    /** A payment with every move it made, oldest first, in one consistent read. */
    public Optional<PaymentHistory> findWithHistory(String paymentId) {
        return TableItems.readConsistently(dynamo, table, pk(paymentId))
                .map(item -> new PaymentHistory(fromItem(item), history(item),
                        RefundRepository.reservations(item).refundIds()));
    }

    /**
     * Statuses an operator may need to find: listed in the attention index while the payment has one.
     * A FAILED payment is listed too while its provider cancel is pending (partition {@code FAILED#<shard>}),
     * so the backlog gauges count it; the operator API does not list FAILED.
     */
    public static final Set<PaymentStatus> NEEDS_ATTENTION = Set.of(PaymentStatus.PENDING, PaymentStatus.UNKNOWN,
            PaymentStatus.NEEDS_REVIEW);

    /** The attention index's partition of a payment in {@code status}: sharded as the sweep's. */
    public String attentionKey(PaymentStatus status, String paymentId) {
        return attentionPartition(status, Integer.parseInt(shardOf(paymentId)));
    }

    /** {@link Table#ATTENTION_KEY}'s format: {@code <STATUS>#<shard>}. */
    private static String attentionPartition(PaymentStatus status, int shard) {
        return status.name() + "#" + shard;
    }

    /**
     * When the sweep first looks at a PENDING payment: once the lease of the run that recorded it
     * (and of one takeover) has surely ended. Before then a PENDING payment is no one's worry.
     */
    public Duration firstSweepDelay() {
        return lease.multipliedBy(2);
    }

    private static AttributeValue entry(HistoryEntry e, MerchantEventType event) {
        return historyEntry(e.at(), e.from(), e.to(), e.actor(), e.reason(), Table.HISTORY_PROVIDER_PAYMENT_ID,
                e.providerPaymentId(), Table.HISTORY_DECLINE_CODE, e.declineCode(), event);
    }

    /**
     * What the merchant hears of {@code t} made by {@code by}; empty for a move it does not hear of
     * (into PENDING or UNKNOWN without anything for the customer to do, review to review).
     */
    static Optional<MerchantEventType> eventOf(Transition t, Actor by) {
        boolean resolution = by.kind() == Actor.Kind.OPERATOR;
        return Optional.ofNullable(switch (t.to()) {
            case SUCCEEDED -> resolution ? MerchantEventType.PAYMENT_RESOLVED : MerchantEventType.PAYMENT_SUCCEEDED;
            case FAILED -> resolution ? MerchantEventType.PAYMENT_RESOLVED : MerchantEventType.PAYMENT_FAILED;
            case NEEDS_REVIEW -> t.from() == PaymentStatus.NEEDS_REVIEW ? null : MerchantEventType.PAYMENT_NEEDS_REVIEW;
            case PENDING, UNKNOWN -> t.customerAction() != null ? MerchantEventType.PAYMENT_REQUIRES_ACTION : null;
        });
    }

    /**
     * One history entry as stored, a payment's or a refund's alike: when, from where ({@code null}
     * for the creation) to where, who and why, and the two pieces of evidence the move rests on.
     */
    static AttributeValue historyEntry(Instant at, Enum<?> from, Enum<?> to, Actor actor, String reason,
            String idAttribute, String id, String codeAttribute, String code, MerchantEventType event) {
        Map<String, AttributeValue> m = new HashMap<>();
        m.put(Table.HISTORY_AT, Attr.s(at.toString()));
        if (from != null) {
            m.put(Table.HISTORY_FROM, Attr.s(from.name()));
        }
        m.put(Table.HISTORY_TO, Attr.s(to.name()));
        m.put(Table.HISTORY_ACTOR_KIND, Attr.s(actor.kind().name()));
        m.put(Table.HISTORY_ACTOR_ID, Attr.s(actor.id()));
        putIfPresent(m, Table.HISTORY_REASON, reason);
        putIfPresent(m, idAttribute, id);
        putIfPresent(m, codeAttribute, code);
        if (event != null) {
            m.put(Table.HISTORY_EVENT, Attr.s(event.wireName()));
        }
        return AttributeValue.fromM(m);
    }

    /** The stored history entries of {@code item}, oldest first, each read by {@code read}; none if it has none. */
    static <T> List<T> historyOf(Map<String, AttributeValue> item, Function<Map<String, AttributeValue>, T> read) {
        AttributeValue list = item.get(Table.HISTORY);
        if (list == null || !list.hasL()) {
            return List.of(); // recorded before histories were kept
        }
        return list.l().stream().map(AttributeValue::m).map(read).toList();
    }

    /** Who made a stored history entry. */
    static Actor actorOf(Map<String, AttributeValue> entry) {
        return new Actor(Actor.Kind.valueOf(Attr.string(entry, Table.HISTORY_ACTOR_KIND)),
                Attr.string(entry, Table.HISTORY_ACTOR_ID));
    }

    private static List<HistoryEntry> history(Map<String, AttributeValue> item) {
        return historyOf(item, m -> new HistoryEntry(Instant.parse(Attr.string(m, Table.HISTORY_AT)),
                Optional.ofNullable(Attr.string(m, Table.HISTORY_FROM)).map(PaymentStatus::valueOf).orElse(null),
                PaymentStatus.valueOf(Attr.string(m, Table.HISTORY_TO)), actorOf(m),
                Attr.string(m, Table.HISTORY_REASON), Attr.string(m, Table.HISTORY_PROVIDER_PAYMENT_ID),
                Attr.string(m, Table.HISTORY_DECLINE_CODE)));
    }

    /**
     * Moves the fence of a PENDING payment to {@code epoch}, held until {@code leaseExpiresAt}:
     * from now on only the run holding that epoch may settle it. Fails if the payment left PENDING
     * or a newer run fenced it already. Epochs are unique per run (each takeover increments the
     * key's), so equal means ours.
     */
    public boolean fence(String paymentId, long epoch, Instant leaseExpiresAt, Instant nextCheckAt) {
        // The new run owns the payment now: the sweep waits for its lease, as for the first run.
        return fencePending(dynamo, table, pk(paymentId), epoch, leaseExpiresAt, nextCheckAt);
    }

    /**
     * Ends the run fenced at {@code epoch}, which sent nothing and never will (its order refused
     * it): its lease ends {@code now}, and so does a queue horizon still ahead, so no worker charges
     * the payment any more; the sweep looks at it from {@code nextCheckAt}. {@code false} if the
     * payment left PENDING or a newer run fenced it.
     */
    public boolean endUnsentRun(Payment payment, long epoch, Instant now, Instant nextCheckAt) {
        Map<String, String> names = new HashMap<>(Map.of("#epoch", Table.LEASE_EPOCH, "#status", Table.STATUS,
                "#leaseEnd", Table.LEASE_EXPIRES_AT, "#next", Table.NEXT_CHECK_AT));
        String update = "SET #leaseEnd = :now, #next = :next";
        if (payment.queuedAt(now)) {
            names.put("#queuedUntil", Table.QUEUED_UNTIL);
            update += ", #queuedUntil = :now";
        }
        String expression = update;
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(payment.id())))
                    .updateExpression(expression)
                    .conditionExpression("#status = :pending AND #epoch = :epoch")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(Map.of(":epoch", Attr.n(epoch),
                            ":pending", Attr.s(PaymentStatus.PENDING.name()),
                            ":now", Attr.n(now.toEpochMilli()),
                            ":next", Attr.n(nextCheckAt.toEpochMilli()))));
            return true;
        } catch (ConditionalCheckFailedException lost) {
            return false;
        }
    }

    /**
     * Moves the fence of the PENDING item {@code pk} (a payment or a refund) to {@code epoch}, held
     * until {@code leaseExpiresAt}, and its next sweep check to {@code nextCheckAt}; {@code false}
     * if it left PENDING or a newer run fenced it.
     */
    static boolean fencePending(DynamoDbClient dynamo, String table, String pk, long epoch, Instant leaseExpiresAt,
            Instant nextCheckAt) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk))
                    .updateExpression("SET #epoch = :epoch, #leaseEnd = :leaseEnd, #next = :next")
                    // "<=": re-fencing at our own epoch (an SDK retry, a resumed run) is a no-op.
                    .conditionExpression("#status = :pending AND #epoch <= :epoch")
                    .expressionAttributeNames(Map.of("#epoch", Table.LEASE_EPOCH, "#status", Table.STATUS,
                            "#leaseEnd", Table.LEASE_EXPIRES_AT, "#next", Table.NEXT_CHECK_AT))
                    .expressionAttributeValues(Map.of(":epoch", Attr.n(epoch),
                            ":pending", Attr.s(PaymentStatus.PENDING.name()),
                            ":leaseEnd", Attr.n(leaseExpiresAt.toEpochMilli()),
                            ":next", Attr.n(nextCheckAt.toEpochMilli()))));
            return true;
        } catch (ConditionalCheckFailedException lost) {
            return false;
        }
    }

    /**
     * Applies one transition made by {@code by}, with its history entry and its place in the
     * attention index, in one conditional write; {@code false} if the payment is no longer where
     * the transition starts.
     */
    public boolean apply(String paymentId, String tenant, Transition t, Actor by, Instant now) {
        Map<String, String> names = new HashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        StringBuilder set = new StringBuilder("SET #status = :to, #updatedAt = :now,"
                + " #history = list_append(if_not_exists(#history, :noHistory), :entry)");
        names.put("#status", Table.STATUS);
        names.put("#updatedAt", Table.UPDATED_AT);
        names.put("#history", Table.HISTORY);
        values.put(":to", Attr.s(t.to().name()));
        values.put(":from", Attr.s(t.from().name()));
        values.put(":now", Attr.s(now.toString()));
        values.put(":noHistory", AttributeValue.fromL(List.of()));
        MerchantEventType event = eventOf(t, by).orElse(null);
        values.put(":entry", AttributeValue.fromL(List.of(entry(new HistoryEntry(now, t.from(), t.to(), by, t.reason(),
                t.providerPaymentId(), t.declineCode()), event))));
        boolean marked = event != null && outbox.wanted(tenant, event);
        if (marked) {
            Outbox.mark(set, names, values, paymentId, shards, now);
        }
        setIfPresent(set, names, values, Table.PROVIDER_PAYMENT_ID, t.providerPaymentId());
        setIfPresent(set, names, values, Table.DECLINE_CODE, t.declineCode());
        setIfPresent(set, names, values, Table.STATUS_REASON, t.reason());
        if (t.cancelPending()) {
            setIfPresent(set, names, values, Table.PROVIDER_CANCEL, Table.PROVIDER_CANCEL_PENDING);
        }
        if (t.customerAction() != null) {
            setIfPresent(set, names, values, Table.CLIENT_SECRET, t.customerAction().clientSecret());
            setIfPresent(set, names, values, Table.NEXT_ACTION, t.customerAction().nextActionJson());
        }
        List<String> remove = new ArrayList<>();
        if (t.reviewReason() != null) {
            setIfPresent(set, names, values, Table.REVIEW_REASON, t.reviewReason().code());
        } else if (!t.to().isUnsettled() && t.to() != PaymentStatus.NEEDS_REVIEW) {
            // Settled (an operator's resolution among others): no longer in review, for no reason.
            names.put("#reviewReason", Table.REVIEW_REASON);
            remove.add("#reviewReason");
        }
        names.put("#next", Table.NEXT_CHECK_AT);
        names.put("#shard", Table.SWEEP_SHARD);
        if (t.nextCheckAt() != null) {
            // Listed again where the move starts outside the index (a watched FAILED from NEEDS_REVIEW).
            set.append(", #next = :next, #shard = :shard");
            values.put(":next", Attr.n(t.nextCheckAt().toEpochMilli()));
            values.put(":shard", Attr.s(shardOf(paymentId)));
        } else {
            // Settled: drop out of the sparse sweep index.
            remove.add("#shard");
            remove.add("#next");
        }
        names.put("#attention", Table.ATTENTION_KEY);
        if (NEEDS_ATTENTION.contains(t.to()) || t.cancelPending()) {
            set.append(", #attention = :attention");
            values.put(":attention", Attr.s(attentionKey(t.to(), paymentId)));
        } else {
            remove.add("#attention");
        }
        String condition = "#status = :from";
        if (t.fenceEpoch().isPresent()) {
            condition += " AND #epoch = :epoch";
            names.put("#epoch", Table.LEASE_EPOCH);
            values.put(":epoch", Attr.n(t.fenceEpoch().getAsLong()));
        }
        String update = set + (remove.isEmpty() ? "" : " REMOVE " + String.join(", ", remove));
        String finalCondition = condition;
        try {
            UpdateItemResponse written = dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(paymentId)))
                    .updateExpression(update).conditionExpression(finalCondition)
                    .expressionAttributeNames(names).expressionAttributeValues(values)
                    .returnValues(marked ? ReturnValue.ALL_NEW : ReturnValue.NONE));
            if (t.to() == PaymentStatus.NEEDS_REVIEW && t.from() != PaymentStatus.NEEDS_REVIEW) {
                metrics.count(Metrics.NEEDS_REVIEW); // every road to a human passes here
            }
            if (marked) {
                outbox.relay(written.attributes());
            }
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    /**
     * Ends the cancel pending of a FAILED payment: the provider confirmed its charge canceled. The
     * payment leaves the sweep and attention indexes; its status and {@code updatedAt} stay (a replay renders the
     * same bytes), its history records the cancel. {@code false} if no cancel is pending any more
     * (confirmed by someone else, or the payment moved to review).
     */
    public boolean confirmCancel(String paymentId, String providerPaymentId, Actor by, String reason, Instant now) {
        Map<String, String> names = Map.of("#status", Table.STATUS, "#cancel", Table.PROVIDER_CANCEL,
                "#history", Table.HISTORY, "#shard", Table.SWEEP_SHARD, "#next", Table.NEXT_CHECK_AT,
                "#attention", Table.ATTENTION_KEY);
        Map<String, AttributeValue> values = Map.of(":failed", Attr.s(PaymentStatus.FAILED.name()),
                ":pending", Attr.s(Table.PROVIDER_CANCEL_PENDING), ":done", Attr.s(Table.PROVIDER_CANCEL_DONE),
                ":noHistory", AttributeValue.fromL(List.of()), ":entry", AttributeValue.fromL(List.of(entry(new HistoryEntry(now, PaymentStatus.FAILED,
                        PaymentStatus.FAILED, by, reason, providerPaymentId, null), null))));
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(paymentId)))
                    .updateExpression("SET #cancel = :done, #history = list_append(if_not_exists(#history, :noHistory), :entry)"
                            + " REMOVE #shard, #next, #attention")
                    .conditionExpression("#status = :failed AND #cancel = :pending")
                    .expressionAttributeNames(names).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    /**
     * Removes a PENDING payment whose charge provably never reached the provider (breaker open),
     * so the client's key can be used again. Fenced like a settlement.
     */
    public boolean deleteUnsent(String paymentId, long epoch) {
        return deletePending(dynamo, table, pk(paymentId), epoch);
    }

    /** Deletes the PENDING item {@code pk} (a payment or a refund) while {@code epoch} holds its fence. */
    static boolean deletePending(DynamoDbClient dynamo, String table, String pk, long epoch) {
        try {
            dynamo.deleteItem(b -> b.tableName(table).key(Attr.key(pk))
                    .conditionExpression("#status = :pending AND #epoch = :epoch")
                    .expressionAttributeNames(Map.of("#status", Table.STATUS, "#epoch", Table.LEASE_EPOCH))
                    .expressionAttributeValues(Map.of(":pending", Attr.s(PaymentStatus.PENDING.name()),
                            ":epoch", Attr.n(epoch))));
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    String shardOf(String paymentId) {
        return Integer.toString(Math.floorMod(paymentId.hashCode(), shards));
    }

    static void setIfPresent(StringBuilder set, Map<String, String> names, Map<String, AttributeValue> values,
            String attribute, String value) {
        if (value != null) {
            String placeholder = "#" + attribute;
            set.append(", ").append(placeholder).append(" = :").append(attribute);
            names.put(placeholder, attribute);
            values.put(":" + attribute, Attr.s(value));
        }
    }

    Payment fromItem(Map<String, AttributeValue> item) {
        String pk = Attr.string(item, Table.PK);
        Instant createdAt = Instant.parse(Attr.string(item, Table.CREATED_AT));
        String provider = Attr.string(item, Table.PROVIDER);
        long leaseEnd = Attr.number(item, Table.LEASE_EXPIRES_AT, -1);
        return new Payment(
                pk.substring(PREFIX.length()),
                Attr.string(item, Table.TENANT),
                PaymentStatus.valueOf(Attr.string(item, Table.STATUS)),
                Attr.number(item, Table.AMOUNT, 0),
                Attr.string(item, Table.CURRENCY),
                Attr.string(item, Table.REFERENCE),
                Attr.string(item, Table.DESCRIPTION),
                Attr.string(item, Table.PROVIDER_PAYMENT_ID),
                Attr.string(item, Table.DECLINE_CODE),
                Attr.string(item, Table.STATUS_REASON),
                createdAt,
                Instant.parse(Attr.string(item, Table.UPDATED_AT)),
                Attr.number(item, Table.LEASE_EPOCH, 0),
                (int) Attr.number(item, Table.CHECK_ATTEMPTS, 0),
                provider == null ? legacyAccount
                        : new ProviderAccount(provider, Attr.string(item, Table.PROVIDER_ACCOUNT)),
                // Without a lease end: the first run's lease (a takeover's later fence is not known).
                leaseEnd < 0 ? createdAt.plus(lease) : Instant.ofEpochMilli(leaseEnd),
                new PaymentInstrument(Attr.string(item, Table.PAYMENT_METHOD), Attr.string(item, Table.CUSTOMER)),
                customerAction(item),
                ReviewReason.ofCode(Attr.string(item, Table.REVIEW_REASON)).orElse(null),
                PaymentStatus.valueOf(Attr.string(item, Table.STATUS)) == PaymentStatus.FAILED
                        && Table.PROVIDER_CANCEL_PENDING.equals(Attr.string(item, Table.PROVIDER_CANCEL)),
                item.containsKey(Table.QUEUED_UNTIL) ? Instant.ofEpochMilli(Attr.number(item, Table.QUEUED_UNTIL, 0)) : null);
    }

    /** Kept once set (the customer may still be finishing it), shown only while the payment waits for them. */
    private static CustomerAction customerAction(Map<String, AttributeValue> item) {
        String clientSecret = Attr.string(item, Table.CLIENT_SECRET);
        PaymentStatus status = PaymentStatus.valueOf(Attr.string(item, Table.STATUS));
        return clientSecret == null || status != PaymentStatus.UNKNOWN ? null
                : new CustomerAction(clientSecret, Attr.string(item, Table.NEXT_ACTION));
    }

    static void putIfPresent(Map<String, AttributeValue> item, String attribute, String value) {
        if (value != null) {
            item.put(attribute, Attr.s(value));
        }
    }

    // Attention: the operator API's access to the sparse, sharded index `attention`.

    /** Where a listing of one attention shard stands: after this payment (index order: newest first). */
    public record AttentionPosition(long createdAtMs, String paymentId) {
    }

    /**
     * One page of one attention shard, newest first; {@code next} is where the following page
     * starts, empty once the shard has no more (with a tenant filter, it may lie past the last
     * payment returned: DynamoDB filters after it reads).
     */
    public record AttentionPage(List<Payment> payments, Optional<AttentionPosition> next) {
    }

    /**
     * Payments in {@code status} of one shard of the attention index, newest first, created before
     * {@code createdBeforeMs} if given, of {@code tenant} if given (a filter on the index query,
     * never a scan), after {@code after} if given: one Query, reading at most {@code limit} items.
     * From the index's projection: no history, and only what a listing shows.
     */
    public AttentionPage attentionPage(PaymentStatus status, int shard, Long createdBeforeMs, String tenant,
            AttentionPosition after, int limit) {
        String partition = attentionPartition(status, shard);
        QueryRequest.Builder query = attentionQuery(partition, createdBeforeMs, tenant);
        var answer = dynamo.query(query
                .exclusiveStartKey(after == null ? null : Map.of(Table.PK, Attr.s(pk(after.paymentId())),
                        Table.ATTENTION_KEY, Attr.s(partition), Table.CREATED_AT_MS, Attr.n(after.createdAtMs())))
                .scanIndexForward(false).limit(limit).build());
        List<Payment> found = answer.items().stream().map(this::fromItem).toList();
        Map<String, AttributeValue> last = answer.lastEvaluatedKey();
        Optional<AttentionPosition> next = last == null || last.isEmpty() ? Optional.empty()
                : Optional.of(new AttentionPosition(Attr.number(last, Table.CREATED_AT_MS, 0),
                        Attr.string(last, Table.PK).substring(PREFIX.length())));
        return new AttentionPage(found, next);
    }

    /** How many payments one shard lists under {@code status}, created before {@code createdBeforeMs} if given. */
    public long attentionCount(PaymentStatus status, int shard, Long createdBeforeMs) {
        QueryRequest.Builder query = attentionQuery(attentionPartition(status, shard), createdBeforeMs, null)
                .select(Select.COUNT);
        long count = 0;
        Map<String, AttributeValue> from = null;
        do {
            QueryResponse page = dynamo.query(query.exclusiveStartKey(from).build());
            count += page.count();
            from = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (from != null);
        return count;
    }

    /** The creation of the oldest payment one shard lists under {@code status}, created before {@code createdBeforeMs} if given. */
    public Optional<Instant> attentionOldest(PaymentStatus status, int shard, Long createdBeforeMs) {
        List<Map<String, AttributeValue>> items = dynamo.query(attentionQuery(attentionPartition(status, shard),
                createdBeforeMs, null).scanIndexForward(true).limit(1).build()).items();
        return items.isEmpty() ? Optional.empty()
                : Optional.of(Instant.ofEpochMilli(Attr.number(items.get(0), Table.CREATED_AT_MS, 0)));
    }

    /** One partition of the attention index, before a creation time and of one tenant if given. */
    private QueryRequest.Builder attentionQuery(String partition, Long createdBeforeMs, String tenant) {
        Map<String, String> names = new HashMap<>(Map.of("#key", Table.ATTENTION_KEY));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":key", Attr.s(partition)));
        String keyCondition = "#key = :key";
        if (createdBeforeMs != null) {
            keyCondition += " AND #created < :before";
            names.put("#created", Table.CREATED_AT_MS);
            values.put(":before", Attr.n(createdBeforeMs));
        }
        String filter = null;
        if (tenant != null) {
            filter = "#tenant = :tenant";
            names.put("#tenant", Table.TENANT);
            values.put(":tenant", Attr.s(tenant));
        }
        return QueryRequest.builder().tableName(table).indexName(Table.ATTENTION_INDEX)
                .keyConditionExpression(keyCondition).filterExpression(filter)
                .expressionAttributeNames(names).expressionAttributeValues(values);
    }

    // Sweep: reconcile's access to the sparse, sharded index `sweep`.

    /** A payment or a refund listed in the sweep index, as the index (eventually consistent) saw it. */
    public record SweepListing(String id, Instant nextCheckAt) {
    }

    /** A payment read consistently, with its next-check time ({@code null} once it left the sweep). */
    public record SweepState(Payment payment, Instant nextCheckAt) {
        public boolean dueAt(Instant now) {
            return payment.status().isSweepable() && nextCheckAt != null && !nextCheckAt.isAfter(now);
        }
    }

    /** Number of sweep-index shards ({@code sweepShard} is {@code "0"} .. {@code shards-1}). */
    public int sweepShards() {
        return shards;
    }

    /**
     * The payments of one shard whose next check is due ({@code nextCheckAt <= now}), oldest
     * first, at most {@code limit}: one Query of the KEYS_ONLY index. Eventually consistent, so
     * callers re-read each payment with {@link #findForSweep} before acting.
     */
    public List<SweepListing> dueForCheck(int shard, Instant now, int limit) {
        List<Map<String, AttributeValue>> items = dynamo.query(b -> b.tableName(table)
                .indexName(Table.SWEEP_INDEX)
                .keyConditionExpression("#shard = :shard AND #next <= :now")
                .expressionAttributeNames(Map.of("#shard", Table.SWEEP_SHARD, "#next", Table.NEXT_CHECK_AT))
                .expressionAttributeValues(Map.of(":shard", Attr.s(Integer.toString(shard)),
                        ":now", Attr.n(now.toEpochMilli())))
                .scanIndexForward(true)
                .limit(limit)).items();
        List<SweepListing> due = new ArrayList<>(items.size());
        for (Map<String, AttributeValue> item : items) {
            due.add(new SweepListing(Attr.string(item, Table.PK).substring(PREFIX.length()),
                    Instant.ofEpochMilli(Attr.number(item, Table.NEXT_CHECK_AT, 0))));
        }
        return due;
    }

    /** Consistent read of a payment with its next-check time: one GetItem, like {@link #find}. */
    public Optional<SweepState> findForSweep(String paymentId) {
        return TableItems.readConsistently(dynamo, table, pk(paymentId)).map(item -> {
            AttributeValue next = item.get(Table.NEXT_CHECK_AT);
            return new SweepState(fromItem(item), next == null ? null : Instant.ofEpochMilli(Long.parseLong(next.n())));
        });
    }

    /**
     * Whether the payment is in the sweep index, read consistently: for a FAILED payment, whether
     * the sweep still watches its failure for a charge showing up.
     */
    public boolean watched(String paymentId) {
        return TableItems.readConsistently(dynamo, table, pk(paymentId))
                .map(item -> item.containsKey(Table.NEXT_CHECK_AT)).orElse(false);
    }

    /**
     * Takes a watched FAILED payment out of the sweep index (its status stays): the provider's word
     * now backs the failure. Conditional on the status and attempt count read, like a deferral.
     */
    public boolean unwatch(Payment observed) {
        if (observed.status() != PaymentStatus.FAILED) {
            throw new IllegalArgumentException("only a watched FAILED payment is unwatched: " + observed.status());
        }
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(observed.id())))
                    .updateExpression("REMOVE #shard, #next")
                    .conditionExpression("#status = :status AND #attempts = :attempts")
                    .expressionAttributeNames(Map.of("#status", Table.STATUS, "#attempts", Table.CHECK_ATTEMPTS,
                            "#shard", Table.SWEEP_SHARD, "#next", Table.NEXT_CHECK_AT))
                    .expressionAttributeValues(Map.of(":status", Attr.s(PaymentStatus.FAILED.name()),
                            ":attempts", Attr.n(observed.checkAttempts()))));
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    /**
     * Puts off the next check of an unsettled payment, a watched FAILED one or a pending cancel: {@code nextCheckAt} and
     * {@code checkAttempts + 1}, in one write conditional on what the sweep read (status, attempts
     * and, for PENDING, the lease epoch), so two racing sweeps count one attempt and a concurrent
     * settlement or takeover wins. {@code updatedAt} stays: a deferral is not a change a client
     * sees, and a replay of the client's key must render the same bytes — unless the sweep learnt
     * what the customer must do ({@code learned}, with the provider's id of the charge that waits):
     * that the client does see, so it is stored with {@code now} as {@code updatedAt}.
     */
    public boolean deferCheck(Payment observed, Instant nextCheckAt, String providerPaymentId, CustomerAction learned,
            Instant now) {
        boolean marked = false;
        if (!observed.status().isSweepable()) {
            throw new IllegalArgumentException("only a payment the sweep lists is deferred: " + observed.status());
        }
        Map<String, String> names = new HashMap<>(Map.of("#status", Table.STATUS, "#attempts", Table.CHECK_ATTEMPTS,
                "#next", Table.NEXT_CHECK_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":status", Attr.s(observed.status().name()),
                ":attempts", Attr.n(observed.checkAttempts()), ":nextAttempts", Attr.n(observed.checkAttempts() + 1L),
                ":next", Attr.n(nextCheckAt.toEpochMilli())));
        String condition = "#status = :status AND #attempts = :attempts";
        if (observed.status() == PaymentStatus.PENDING) {
            condition += " AND #epoch = :epoch";
            names.put("#epoch", Table.LEASE_EPOCH);
            values.put(":epoch", Attr.n(observed.leaseEpoch()));
        }
        StringBuilder set = new StringBuilder("SET #next = :next, #attempts = :nextAttempts");
        if (learned != null) {
            set.append(", #updatedAt = :now");
            names.put("#updatedAt", Table.UPDATED_AT);
            values.put(":now", Attr.s(now.toString()));
            setIfPresent(set, names, values, Table.PROVIDER_PAYMENT_ID, providerPaymentId);
            setIfPresent(set, names, values, Table.CLIENT_SECRET, learned.clientSecret());
            setIfPresent(set, names, values, Table.NEXT_ACTION, learned.nextActionJson());
            // The merchant hears of it as of a move: its own history entry, from the status to itself.
            set.append(", #history = list_append(if_not_exists(#history, :noHistory), :entry)");
            names.put("#history", Table.HISTORY);
            values.put(":noHistory", AttributeValue.fromL(List.of()));
            values.put(":entry", AttributeValue.fromL(List.of(entry(new HistoryEntry(now, observed.status(),
                    observed.status(), Actor.SWEEP, "the provider asks the customer to act", providerPaymentId, null),
                    MerchantEventType.PAYMENT_REQUIRES_ACTION))));
            marked = outbox.wanted(observed.tenant(), MerchantEventType.PAYMENT_REQUIRES_ACTION);
            if (marked) {
                Outbox.mark(set, names, values, observed.id(), shards, now);
            }
        }
        String finalCondition = condition;
        String update = set.toString();
        boolean relay = marked;
        try {
            UpdateItemResponse written = dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(observed.id())))
                    .updateExpression(update)
                    .conditionExpression(finalCondition)
                    .expressionAttributeNames(names).expressionAttributeValues(values)
                    .returnValues(relay ? ReturnValue.ALL_NEW : ReturnValue.NONE));
            if (relay) {
                outbox.relay(written.attributes());
            }
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }
}
