package dev.oncepay.payment;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.PaymentRepository.SweepListing;
import dev.oncepay.store.TableItems;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * Refund items, and the reservations their amounts hold on their payment's item. Every write is
 * one conditional write on one item: the reservation ({@link #reserve}) is what keeps the sum of
 * refunds at or below the captured amount, whatever runs concurrently — no transaction, no
 * read-then-write in code.
 */
@ApplicationScoped
public class RefundRepository {
    private static final String PREFIX = "refund#";
    /** Refunds have sweep-index partitions of their own, so payments' and refunds' sweeps never read each other's items. */
    private static final String SWEEP_PARTITION = "refund#";
    private static final int BATCH_GET_LIMIT = 100;

    private final DynamoDbClient dynamo;
    private final PaymentRepository payments;
    private final EmbeddedMetrics metrics;
    private final String table;
    private final int shards;
    private final EventOutbox outbox;

    public RefundRepository(DynamoDbClient dynamo, PaymentRepository payments, OncepayConfig config,
            EmbeddedMetrics metrics, EventOutbox outbox) {
        this.dynamo = dynamo;
        this.metrics = metrics;
        this.payments = payments;
        this.table = config.table();
        this.shards = config.sweep().shards();
        this.outbox = outbox;
    }

    public static String pk(String refundId) {
        return PREFIX + refundId;
    }

    /** What a payment's item holds for its refunds: every refund reserved on it, those still holding, and their sum. */
    public record Reservations(long held, Set<String> holds, Set<String> refundIds) {
        public static final Reservations NONE = new Reservations(0, Set.of(), Set.of());

        /** What may still be refunded of {@code captured}. */
        public long leftOf(long captured) {
            return Math.max(0, captured - held);
        }
    }

    /** How a reservation ended. */
    public enum Reserved {
        /** This write reserved the amount, or an earlier one for the same refund had. */
        RESERVED,
        /** The payment is not SUCCEEDED: nothing can be refunded. */
        NOT_REFUNDABLE,
        /** The amount is more than what is left of the payment. */
        EXCEEDS,
        /** The refund held a reservation once and gave it back (failed): it must not be sent. */
        RELEASED
    }

    /** A payment and what its refunds hold of it, from one read of its item. */
    public record RefundablePayment(Payment payment, Reservations reservations) {
    }

    /** The payment with its reservations: one consistent GetItem. */
    public Optional<RefundablePayment> findPayment(String paymentId) {
        return TableItems.readConsistently(dynamo, table, PaymentRepository.pk(paymentId))
                .map(item -> new RefundablePayment(payments.fromItem(item), reservations(item)));
    }

    /** The payment's reservations, read consistently; {@link Reservations#NONE} for a payment without refunds. */
    public Reservations reservationsOf(String paymentId) {
        return TableItems.readConsistently(dynamo, table, PaymentRepository.pk(paymentId))
                .map(RefundRepository::reservations).orElse(Reservations.NONE);
    }

    static Reservations reservations(Map<String, AttributeValue> paymentItem) {
        AttributeValue holds = paymentItem.get(Table.REFUND_HOLDS);
        AttributeValue ids = paymentItem.get(Table.REFUND_IDS);
        return new Reservations(Attr.number(paymentItem, Table.REFUND_HELD, 0),
                holds == null ? Set.of() : Set.copyOf(holds.ss()), ids == null ? Set.of() : Set.copyOf(ids.ss()));
    }

    /**
     * Reserves {@code refund}'s amount on its payment, if the payment is SUCCEEDED and what is
     * reserved stays at or below what it captured: one conditional UpdateItem. The refund's id joins
     * the payment's sets in the same write, so a repeat (an SDK retry, a takeover) reserves nothing twice.
     */
    public Reserved reserve(Payment payment, Refund refund) {
        long limit = payment.amount() - refund.amount();
        if (limit < 0) {
            return Reserved.EXCEEDS;
        }
        AttributeValue id = AttributeValue.fromSs(List.of(refund.id()));
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(PaymentRepository.pk(payment.id())))
                    .updateExpression("ADD #held :amount, #holds :id, #ids :id")
                    .conditionExpression("#kind = :payment AND #status = :succeeded AND #tenant = :tenant"
                            + " AND (attribute_not_exists(#held) OR #held <= :limit) AND NOT contains(#ids, :refund)")
                    .expressionAttributeNames(Map.of("#held", Table.REFUND_HELD, "#holds", Table.REFUND_HOLDS,
                            "#ids", Table.REFUND_IDS, "#kind", Table.KIND, "#status", Table.STATUS,
                            "#tenant", Table.TENANT))
                    .expressionAttributeValues(Map.of(":amount", Attr.n(refund.amount()), ":id", id,
                            ":payment", Attr.s(Table.KIND_PAYMENT), ":succeeded", Attr.s(PaymentStatus.SUCCEEDED.name()),
                            ":tenant", Attr.s(refund.tenant()), ":limit", Attr.n(limit), ":refund", Attr.s(refund.id()))));
            return Reserved.RESERVED;
        } catch (ConditionalCheckFailedException refused) {
            // Why: one consistent read, only on this path.
            Optional<Map<String, AttributeValue>> item = TableItems.readConsistently(dynamo, table,
                    PaymentRepository.pk(payment.id()));
            if (item.isEmpty()) {
                return Reserved.NOT_REFUNDABLE;
            }
            Reservations held = reservations(item.get());
            if (held.holds().contains(refund.id())) {
                return Reserved.RESERVED; // ours already (a retried write, a resumed run)
            }
            if (held.refundIds().contains(refund.id())) {
                return Reserved.RELEASED;
            }
            return PaymentStatus.SUCCEEDED.name().equals(Attr.string(item.get(), Table.STATUS))
                    ? Reserved.EXCEEDS : Reserved.NOT_REFUNDABLE;
        }
    }

    /**
     * Gives {@code refund}'s reserved amount back to its payment: only once the provider proved the
     * refund did not happen (or it was never sent). {@code false} if it no longer held a
     * reservation (released before: by a webhook, the sweep, or a retry of this very write).
     */
    public boolean release(Refund refund) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(PaymentRepository.pk(refund.paymentId())))
                    .updateExpression("ADD #held :minus DELETE #holds :id")
                    .conditionExpression("contains(#holds, :refund)")
                    .expressionAttributeNames(Map.of("#held", Table.REFUND_HELD, "#holds", Table.REFUND_HOLDS))
                    .expressionAttributeValues(Map.of(":minus", Attr.n(-refund.amount()),
                            ":id", AttributeValue.fromSs(List.of(refund.id())), ":refund", Attr.s(refund.id()))));
            return true;
        } catch (ConditionalCheckFailedException notHeld) {
            return false;
        }
    }

    /** Records a PENDING refund, listed for the sweep from the start; {@code false} if it exists (an earlier run made it). */
    public boolean create(Refund refund, Instant nextCheckAt) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Table.PK, Attr.s(pk(refund.id())));
        item.put(Table.KIND, Attr.s(Table.KIND_REFUND));
        item.put(Table.PAYMENT_ID, Attr.s(refund.paymentId()));
        item.put(Table.TENANT, Attr.s(refund.tenant()));
        item.put(Table.STATUS, Attr.s(RefundStatus.PENDING.name()));
        item.put(Table.AMOUNT, Attr.n(refund.amount()));
        item.put(Table.CURRENCY, Attr.s(refund.currency()));
        if (refund.reason() != null) {
            item.put(Table.REFUND_REASON, Attr.s(refund.reason()));
        }
        if (!refund.metadata().isEmpty()) {
            Map<String, AttributeValue> pairs = new LinkedHashMap<>();
            refund.metadata().forEach((k, v) -> pairs.put(k, Attr.s(v)));
            item.put(Table.METADATA, AttributeValue.fromM(pairs));
        }
        item.put(Table.CREATED_AT, Attr.s(refund.createdAt().toString()));
        item.put(Table.UPDATED_AT, Attr.s(refund.updatedAt().toString()));
        item.put(Table.LEASE_EPOCH, Attr.n(refund.leaseEpoch()));
        item.put(Table.LEASE_EXPIRES_AT, Attr.n(refund.leaseExpiresAt().toEpochMilli()));
        item.put(Table.CHECK_ATTEMPTS, Attr.n(0));
        item.put(Table.PROVIDER, Attr.s(refund.providerAccount().provider()));
        item.put(Table.PROVIDER_ACCOUNT, Attr.s(refund.providerAccount().account()));
        item.put(Table.SWEEP_SHARD, Attr.s(shardOf(refund.id())));
        item.put(Table.NEXT_CHECK_AT, Attr.n(nextCheckAt.toEpochMilli()));
        item.put(Table.HISTORY, AttributeValue.fromL(List.of(step(new RefundStep(refund.createdAt(), null,
                RefundStatus.PENDING, Actor.refundRun(refund.leaseEpoch()), "refund request accepted", null, null), null))));
        return TableItems.putIfAbsent(dynamo, table, item);
    }

    /** Consistent read. */
    public Optional<Refund> find(String refundId) {
        return TableItems.readConsistently(dynamo, table, pk(refundId)).map(this::fromItem);
    }

    /** A refund with every move it made, oldest first, and its next-check time ({@code null} once settled). */
    public record RefundRecord(Refund refund, List<RefundStep> history, Instant nextCheckAt) {
        public boolean dueAt(Instant now) {
            return nextCheckAt != null && !nextCheckAt.isAfter(now);
        }
    }

    /** One consistent read of the refund, its history and its next check. */
    public Optional<RefundRecord> findRecord(String refundId) {
        return TableItems.readConsistently(dynamo, table, pk(refundId)).map(this::record);
    }

    /** The refunds {@code refundIds} name, read consistently (BatchGetItem), oldest first; missing ones are left out. */
    public List<RefundRecord> findAll(Collection<String> refundIds) {
        List<String> ids = List.copyOf(refundIds);
        List<RefundRecord> found = new ArrayList<>(ids.size());
        for (int from = 0; from < ids.size(); from += BATCH_GET_LIMIT) {
            List<Map<String, AttributeValue>> keys = ids.subList(from, Math.min(ids.size(), from + BATCH_GET_LIMIT))
                    .stream().map(id -> Attr.key(pk(id))).toList();
            Map<String, KeysAndAttributes> request = Map.of(table,
                    KeysAndAttributes.builder().keys(keys).consistentRead(true).build());
            while (!request.isEmpty()) {
                Map<String, KeysAndAttributes> asked = request;
                BatchGetItemResponse response = dynamo.batchGetItem(b -> b.requestItems(asked));
                response.responses().getOrDefault(table, List.of()).forEach(item -> found.add(record(item)));
                request = response.unprocessedKeys() == null ? Map.of() : response.unprocessedKeys();
            }
        }
        found.sort(Comparator.comparing((RefundRecord r) -> r.refund().createdAt()).thenComparing(r -> r.refund().id()));
        return found;
    }

    /**
     * Moves the fence of a PENDING refund to {@code epoch}: from now on only the run holding it may
     * settle it. Fails if the refund left PENDING or a newer run fenced it.
     */
    public boolean fence(String refundId, long epoch, Instant leaseExpiresAt, Instant nextCheckAt) {
        return PaymentRepository.fencePending(dynamo, table, pk(refundId), epoch, leaseExpiresAt, nextCheckAt);
    }

    /**
     * Applies one transition made by {@code by}, with its history entry and its place in the sweep
     * index, in one conditional write; {@code false} if the refund is no longer where it starts.
     */
    public boolean apply(String refundId, String tenant, RefundTransition t, Actor by, Instant now) {
        Map<String, String> names = new HashMap<>(Map.of("#status", Table.STATUS, "#updatedAt", Table.UPDATED_AT,
                "#history", Table.HISTORY, "#next", Table.NEXT_CHECK_AT, "#shard", Table.SWEEP_SHARD));
        Map<String, AttributeValue> values = new HashMap<>();
        StringBuilder set = new StringBuilder("SET #status = :to, #updatedAt = :now,"
                + " #history = list_append(if_not_exists(#history, :noHistory), :entry)");
        values.put(":to", Attr.s(t.to().name()));
        values.put(":from", Attr.s(t.from().name()));
        values.put(":now", Attr.s(now.toString()));
        values.put(":noHistory", AttributeValue.fromL(List.of()));
        MerchantEventType event = eventOf(t).orElse(null);
        values.put(":entry", AttributeValue.fromL(List.of(step(new RefundStep(now, t.from(), t.to(), by, t.reason(),
                t.providerRefundId(), t.failureCode()), event))));
        boolean marked = event != null && outbox.wanted(tenant, event);
        if (marked) {
            Outbox.mark(set, names, values, refundId, shards, now);
        }
        PaymentRepository.setIfPresent(set, names, values, Table.PROVIDER_REFUND_ID, t.providerRefundId());
        PaymentRepository.setIfPresent(set, names, values, Table.FAILURE_CODE, t.failureCode());
        PaymentRepository.setIfPresent(set, names, values, Table.STATUS_REASON, t.reason());
        String update;
        if (t.nextCheckAt() != null) {
            set.append(", #next = :next, #shard = :shard");
            values.put(":next", Attr.n(t.nextCheckAt().toEpochMilli()));
            values.put(":shard", Attr.s(shardOf(refundId)));
            update = set.toString();
        } else {
            update = set + " REMOVE #shard, #next"; // settled: out of the sparse sweep index
        }
        String condition = "#status = :from";
        if (t.fenceEpoch().isPresent()) {
            condition += " AND #epoch = :epoch";
            names.put("#epoch", Table.LEASE_EPOCH);
            values.put(":epoch", Attr.n(t.fenceEpoch().getAsLong()));
        }
        String finalCondition = condition;
        try {
            UpdateItemResponse written = dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(refundId)))
                    .updateExpression(update).conditionExpression(finalCondition).expressionAttributeNames(names)
                    .expressionAttributeValues(values).returnValues(marked ? ReturnValue.ALL_NEW : ReturnValue.NONE));
            if (t.to() == RefundStatus.NEEDS_REVIEW) {
                metrics.count(Metrics.NEEDS_REVIEW); // the same alarm as a payment's: a human decides
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
     * Puts off the next check of an unsettled refund: {@code nextCheckAt} and {@code checkAttempts + 1},
     * conditional on what the sweep read (status, attempts, and for PENDING the lease epoch).
     */
    public boolean defer(Refund observed, Instant nextCheckAt) {
        Map<String, String> names = new HashMap<>(Map.of("#status", Table.STATUS, "#attempts", Table.CHECK_ATTEMPTS,
                "#next", Table.NEXT_CHECK_AT, "#epoch", Table.LEASE_EPOCH));
        Map<String, AttributeValue> values = Map.of(":status", Attr.s(observed.status().name()),
                ":attempts", Attr.n(observed.checkAttempts()), ":nextAttempts", Attr.n(observed.checkAttempts() + 1L),
                ":next", Attr.n(nextCheckAt.toEpochMilli()), ":epoch", Attr.n(observed.leaseEpoch()));
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(observed.id())))
                    .updateExpression("SET #next = :next, #attempts = :nextAttempts")
                    .conditionExpression("#status = :status AND #attempts = :attempts AND #epoch = :epoch")
                    .expressionAttributeNames(names).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    /** Takes a FAILED refund whose reservation is released out of the sweep index. */
    public boolean unlist(Refund observed) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk(observed.id())))
                    .updateExpression("REMOVE #shard, #next")
                    .conditionExpression("#status = :failed")
                    .expressionAttributeNames(Map.of("#status", Table.STATUS, "#shard", Table.SWEEP_SHARD,
                            "#next", Table.NEXT_CHECK_AT))
                    .expressionAttributeValues(Map.of(":failed", Attr.s(RefundStatus.FAILED.name()))));
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    /** Removes a PENDING refund that provably never reached the provider, fenced like a settlement. */
    public boolean deleteUnsent(String refundId, long epoch) {
        return PaymentRepository.deletePending(dynamo, table, pk(refundId), epoch);
    }

    /** Number of refund sweep partitions ({@code refund#0} .. {@code refund#<shards-1>}). */
    public int sweepShards() {
        return shards;
    }

    /** The refunds of one shard whose next check is due, oldest first, at most {@code limit}: one Query. */
    public List<SweepListing> dueForCheck(int shard, Instant now, int limit) {
        List<Map<String, AttributeValue>> items = dynamo.query(b -> b.tableName(table)
                .indexName(Table.SWEEP_INDEX)
                .keyConditionExpression("#shard = :shard AND #next <= :now")
                .expressionAttributeNames(Map.of("#shard", Table.SWEEP_SHARD, "#next", Table.NEXT_CHECK_AT))
                .expressionAttributeValues(Map.of(":shard", Attr.s(SWEEP_PARTITION + shard),
                        ":now", Attr.n(now.toEpochMilli())))
                .scanIndexForward(true)
                .limit(limit)).items();
        return items.stream().map(item -> new SweepListing(Attr.string(item, Table.PK).substring(PREFIX.length()),
                Instant.ofEpochMilli(Attr.number(item, Table.NEXT_CHECK_AT, 0)))).toList();
    }

    private String shardOf(String refundId) {
        return SWEEP_PARTITION + Math.floorMod(refundId.hashCode(), shards);
    }

    private RefundRecord record(Map<String, AttributeValue> item) {
        AttributeValue next = item.get(Table.NEXT_CHECK_AT);
        return new RefundRecord(fromItem(item), history(item),
                next == null ? null : Instant.ofEpochMilli(Long.parseLong(next.n())));
    }

    private Refund fromItem(Map<String, AttributeValue> item) {
        AttributeValue pairs = item.get(Table.METADATA);
        Map<String, String> metadata = new LinkedHashMap<>();
        if (pairs != null && pairs.hasM()) {
            pairs.m().forEach((k, v) -> metadata.put(k, v.s()));
        }
        return new Refund(Attr.string(item, Table.PK).substring(PREFIX.length()),
                Attr.string(item, Table.PAYMENT_ID), Attr.string(item, Table.TENANT),
                RefundStatus.valueOf(Attr.string(item, Table.STATUS)), Attr.number(item, Table.AMOUNT, 0),
                Attr.string(item, Table.CURRENCY), Attr.string(item, Table.REFUND_REASON), metadata,
                Attr.string(item, Table.PROVIDER_REFUND_ID), Attr.string(item, Table.FAILURE_CODE),
                Attr.string(item, Table.STATUS_REASON), Instant.parse(Attr.string(item, Table.CREATED_AT)),
                Instant.parse(Attr.string(item, Table.UPDATED_AT)), Attr.number(item, Table.LEASE_EPOCH, 0),
                Instant.ofEpochMilli(Attr.number(item, Table.LEASE_EXPIRES_AT, 0)),
                (int) Attr.number(item, Table.CHECK_ATTEMPTS, 0),
                new ProviderAccount(Attr.string(item, Table.PROVIDER), Attr.string(item, Table.PROVIDER_ACCOUNT)));
    }

    private static AttributeValue step(RefundStep s, MerchantEventType event) {
        return PaymentRepository.historyEntry(s.at(), s.from(), s.to(), s.actor(), s.reason(), Table.PROVIDER_REFUND_ID,
                s.providerRefundId(), Table.FAILURE_CODE, s.failureCode(), event);
    }

    /** What the merchant hears of {@code t}: a refund's settlement and its move to review. */
    static Optional<MerchantEventType> eventOf(RefundTransition t) {
        return Optional.ofNullable(switch (t.to()) {
            case SUCCEEDED -> MerchantEventType.REFUND_SUCCEEDED;
            case FAILED -> MerchantEventType.REFUND_FAILED;
            case NEEDS_REVIEW -> t.from() == RefundStatus.NEEDS_REVIEW ? null : MerchantEventType.REFUND_NEEDS_REVIEW;
            default -> null;
        });
    }

    private static List<RefundStep> history(Map<String, AttributeValue> item) {
        return PaymentRepository.historyOf(item, m -> new RefundStep(Instant.parse(Attr.string(m, Table.HISTORY_AT)),
                Optional.ofNullable(Attr.string(m, Table.HISTORY_FROM)).map(RefundStatus::valueOf).orElse(null),
                RefundStatus.valueOf(Attr.string(m, Table.HISTORY_TO)), PaymentRepository.actorOf(m),
                Attr.string(m, Table.HISTORY_REASON), Attr.string(m, Table.PROVIDER_REFUND_ID),
                Attr.string(m, Table.FAILURE_CODE)));
    }
}
