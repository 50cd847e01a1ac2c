package dev.oncepay.wallet;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.store.TableItems;
import dev.oncepay.wallet.WalletState.Marker;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
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

/**
 * Wallet and wallet-operation items. Every change of a wallet is ONE conditional UpdateItem on its
 * item that writes the operation's marker with it, conditioned on the marker's absence and on the
 * prune horizon (see docs/wallets.md): the store, never a read in code, decides.
 */
@ApplicationScoped
public class WalletStore {
    static final String OPERATION_PREFIX = "wop#";
    private static final String HORIZON_HOLDS = "(attribute_not_exists(#horizon) OR #horizon <= :known)";
    /** Keys per BatchGetItem (DynamoDB's limit is 100) and so markers per prune write. */
    private static final int PRUNE_BATCH = 48;

    private final DynamoDbClient dynamo;
    private final String table;

    public WalletStore(DynamoDbClient dynamo, OncepayConfig config) {
        this.dynamo = dynamo;
        this.table = config.table();
    }

    /** The wallet item, read consistently; {@link WalletState#absent} if no write reached it. */
    WalletState read(WalletRef wallet) {
        return TableItems.readConsistently(dynamo, table, wallet.storageId()).map(WalletStore::state)
                .orElseGet(() -> WalletState.absent(wallet.walletId()));
    }

    /**
     * Applies a credit: balance and seq up, currency fixed if unset, the marker written; the item is
     * created by the first one.
     *
     * @param known the wallet version this run knows the operation was not marked before
     * @return the wallet after it, or empty if the condition failed (marked already, another
     *         currency, or the horizon passed {@code known})
     */
    Optional<WalletState> credit(WalletOperand op, long known) {
        return update(op, known, "SET #balance = if_not_exists(#balance, :zero) + :amount,"
                + " #seq = if_not_exists(#seq, :zero) + :one, #version = if_not_exists(#version, :zero) + :one,"
                + " #currency = :currency, #kind = :walletKind, #tenant = :tenant, #walletId = :walletId, #m = :marker,"
                + " #mv = if_not_exists(#version, :zero) + :one, #mq = if_not_exists(#seq, :zero) + :one,"
                + " #mb = if_not_exists(#balance, :zero) + :amount",
                "attribute_not_exists(#m) AND (attribute_not_exists(#currency) OR #currency = :currency) AND "
                        + HORIZON_HOLDS,
                marker(op, Outcome.APPLIED, op.request().currency()), true);
    }

    /** Applies a debit, only if the balance covers it: otherwise, as on any failed condition, empty. */
    Optional<WalletState> debit(WalletOperand op, long known) {
        return update(op, known, "SET #balance = #balance - :amount, #seq = #seq + :one,"
                + " #version = #version + :one, #m = :marker, #mv = #version + :one, #mq = #seq + :one,"
                + " #mb = #balance - :amount",
                "attribute_not_exists(#m) AND #currency = :currency AND #balance >= :amount AND " + HORIZON_HOLDS,
                marker(op, Outcome.APPLIED, op.request().currency()), true);
    }

    /**
     * Records a debit as refused: the marker alone (and the item, for a wallet no write reached),
     * with the balance at that instant, if it is still below the amount and the wallet's currency
     * is still {@code currency} ({@code null}: none yet).
     */
    Optional<WalletState> refuse(WalletOperand op, long known, String currency) {
        return update(op, known, "SET #version = if_not_exists(#version, :zero) + :one, #kind = :walletKind,"
                + " #tenant = :tenant, #walletId = :walletId, #m = :marker,"
                + " #mv = if_not_exists(#version, :zero) + :one, #mb = if_not_exists(#balance, :zero)",
                "attribute_not_exists(#m) AND (attribute_not_exists(#balance) OR #balance < :amount) AND "
                        + (currency == null ? "attribute_not_exists(#currency)" : "#currency = :currency") + " AND "
                        + HORIZON_HOLDS,
                marker(op, Outcome.REFUSED, currency), currency != null);
    }

    private Optional<WalletState> update(WalletOperand op, long known, String update, String condition,
            AttributeValue marker, boolean withCurrency) {
        Map<String, String> names = new HashMap<>();
        names.put("#m", Table.MARKER + op.operationId());
        names.put("#mv", Table.MARKER_VERSION + op.operationId());
        names.put("#version", Table.VERSION);
        names.put("#horizon", Table.HORIZON);
        names.put("#balance", Table.BALANCE);
        names.put("#currency", Table.CURRENCY);
        names.put("#mb", Table.MARKER_BALANCE + op.operationId());
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":one", Attr.n(1));
        values.put(":known", Attr.n(known));
        values.put(":amount", Attr.n(op.request().amount()));
        values.put(":marker", marker);
        if (withCurrency) {
            values.put(":currency", Attr.s(op.request().currency()));
        }
        if (update.contains(":zero")) {
            values.put(":zero", Attr.n(0));
        }
        if (update.contains("#seq")) {
            names.put("#seq", Table.SEQ);
            names.put("#mq", Table.MARKER_SEQ + op.operationId());
        }
        if (update.contains("#kind")) {
            names.put("#kind", Table.KIND);
            names.put("#tenant", Table.TENANT);
            names.put("#walletId", Table.WALLET_ID);
            values.put(":walletKind", Attr.s(Table.KIND_WALLET));
            values.put(":tenant", Attr.s(op.wallet().tenant()));
            values.put(":walletId", Attr.s(op.wallet().walletId()));
        }
        try {
            return Optional.of(state(dynamo.updateItem(b -> b.tableName(table).key(Attr.key(op.wallet().storageId()))
                    .updateExpression(update).conditionExpression(condition)
                    .expressionAttributeNames(names).expressionAttributeValues(values)
                    .returnValues(ReturnValue.ALL_NEW)).attributes()));
        } catch (ConditionalCheckFailedException notNow) {
            return Optional.empty();
        }
    }

    private static AttributeValue marker(WalletOperand op, Outcome outcome, String currency) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        m.put("kind", Attr.s(op.kind().apiName()));
        m.put("outcome", Attr.s(outcome.storedName()));
        m.put("amount", Attr.n(op.request().amount()));
        m.put("reference", Attr.s(op.request().reference()));
        m.put("at", Attr.n(op.at().toEpochMilli()));
        if (currency != null) {
            m.put("currency", Attr.s(currency));
        }
        return AttributeValue.fromM(m);
    }

    /** The operation's own item, read consistently. */
    Optional<WalletOperation> operation(String operationId) {
        return TableItems.readConsistently(dynamo, table, OPERATION_PREFIX + operationId)
                .map(WalletStore::operationOf);
    }

    /**
     * Writes the operation's item unless it exists. Everyone who writes it derives it from the
     * same marker, so an existing one is this one.
     */
    void record(WalletRef wallet, WalletOperation op) {
        try {
            dynamo.putItem(b -> b.tableName(table).item(item(wallet, op))
                    .conditionExpression("attribute_not_exists(#pk)")
                    .expressionAttributeNames(Map.of("#pk", Table.PK)));
        } catch (ConditionalCheckFailedException written) {
            // by an earlier attempt, another run of the operation, or a prune
        }
    }

    /**
     * Applied entries of the wallet with seq in {@code [low, high]}, from the entries index
     * (eventually consistent: the caller checks it got each one).
     */
    List<WalletOperation> entries(WalletRef wallet, long low, long high) {
        return dynamo.queryPaginator(b -> b.tableName(table).indexName(Table.WALLET_INDEX)
                .keyConditionExpression("#w = :w AND #s BETWEEN :low AND :high")
                .expressionAttributeNames(Map.of("#w", Table.WALLET, "#s", Table.WALLET_SEQ))
                .expressionAttributeValues(Map.of(":w", Attr.s(wallet.storageId()), ":low", Attr.n(low),
                        ":high", Attr.n(high))))
                .items().stream().map(WalletStore::operationOf).toList();
    }

    /**
     * Drops the markers beyond the newest {@code keep} (at most a batch), once each one's own item
     * exists: read consistently, and written here from the marker where a run died before it
     * did. The horizon moves up to the highest version dropped, in the same write.
     *
     * @return how many markers were dropped
     */
    int prune(WalletRef wallet, WalletState state, int keep) {
        List<Marker> old = state.markers().values().stream()
                .sorted(Comparator.comparingLong(Marker::version).reversed())
                .skip(keep).limit(PRUNE_BATCH).toList();
        if (old.isEmpty()) {
            return 0;
        }
        Set<String> recorded = existingOperations(old.stream().map(m -> m.operation().id()).toList());
        for (Marker m : old) {
            if (!recorded.contains(m.operation().id())) {
                record(wallet, m.operation());
            }
        }
        long horizon = old.stream().mapToLong(Marker::version).max().orElseThrow();
        Map<String, String> names = new HashMap<>();
        List<String> removed = new ArrayList<>();
        for (int i = 0; i < old.size(); i++) {
            String id = old.get(i).operation().id();
            List.of(Table.MARKER, Table.MARKER_VERSION, Table.MARKER_SEQ, Table.MARKER_BALANCE).forEach(prefix -> {
                String alias = "#a" + removed.size();
                names.put(alias, prefix + id);
                removed.add(alias);
            });
        }
        names.put("#horizon", Table.HORIZON);
        String remove = "REMOVE " + String.join(", ", removed);
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(wallet.storageId()))
                    .updateExpression("SET #horizon = :h " + remove)
                    .conditionExpression("attribute_not_exists(#horizon) OR #horizon <= :h")
                    .expressionAttributeNames(names).expressionAttributeValues(Map.of(":h", Attr.n(horizon))));
        } catch (ConditionalCheckFailedException higherAlready) {
            // Another prune moved the horizon past ours: dropping these needs no move of it.
            try {
                dynamo.updateItem(b -> b.tableName(table).key(Attr.key(wallet.storageId()))
                        .updateExpression(remove).conditionExpression("#horizon >= :h")
                        .expressionAttributeNames(names).expressionAttributeValues(Map.of(":h", Attr.n(horizon))));
            } catch (ConditionalCheckFailedException impossible) {
                return 0; // the horizon never goes down; left for the next prune
            }
        }
        return old.size();
    }

    private Set<String> existingOperations(List<String> ids) {
        Map<String, KeysAndAttributes> request = Map.of(table, KeysAndAttributes.builder().consistentRead(true)
                .keys(ids.stream().map(id -> Attr.key(OPERATION_PREFIX + id)).toList())
                .projectionExpression("#pk").expressionAttributeNames(Map.of("#pk", Table.PK)).build());
        Set<String> found = new HashSet<>();
        while (!request.isEmpty()) {
            Map<String, KeysAndAttributes> ask = request;
            BatchGetItemResponse response = dynamo.batchGetItem(b -> b.requestItems(ask));
            response.responses().getOrDefault(table, List.of())
                    .forEach(item -> found.add(Attr.string(item, Table.PK).substring(OPERATION_PREFIX.length())));
            request = response.hasUnprocessedKeys() ? response.unprocessedKeys() : Map.of();
        }
        return found;
    }

    private static Map<String, AttributeValue> item(WalletRef wallet, WalletOperation op) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Table.PK, Attr.s(OPERATION_PREFIX + op.id()));
        item.put(Table.KIND, Attr.s(Table.KIND_WALLET_OPERATION));
        item.put(Table.TENANT, Attr.s(wallet.tenant()));
        item.put(Table.WALLET_ID, Attr.s(op.walletId()));
        item.put(Table.ENTRY_KIND, Attr.s(op.kind().apiName()));
        item.put(Table.OUTCOME, Attr.s(op.outcome().storedName()));
        item.put(Table.AMOUNT, Attr.n(op.amount()));
        if (op.currency() != null) {
            item.put(Table.CURRENCY, Attr.s(op.currency()));
        }
        item.put(Table.REFERENCE, Attr.s(op.reference()));
        item.put(Table.BALANCE, Attr.n(op.balance()));
        item.put(Table.CREATED_AT, Attr.s(op.createdAt().toString()));
        if (op.applied()) {
            // Only entries are listed: a refused debit stays out of the index.
            item.put(Table.WALLET, Attr.s(wallet.storageId()));
            item.put(Table.WALLET_SEQ, Attr.n(op.seq()));
        }
        return item;
    }

    private static WalletOperation operationOf(Map<String, AttributeValue> item) {
        return new WalletOperation(
                Attr.string(item, Table.PK).substring(OPERATION_PREFIX.length()),
                Attr.string(item, Table.WALLET_ID),
                EntryKind.ofApiName(Attr.string(item, Table.ENTRY_KIND)),
                Outcome.ofStoredName(Attr.string(item, Table.OUTCOME)),
                Attr.number(item, Table.AMOUNT, 0),
                Attr.string(item, Table.CURRENCY),
                Attr.string(item, Table.REFERENCE),
                Attr.number(item, Table.WALLET_SEQ, 0),
                Attr.number(item, Table.BALANCE, 0),
                Instant.parse(Attr.string(item, Table.CREATED_AT)));
    }

    private static WalletState state(Map<String, AttributeValue> item) {
        String walletId = Attr.string(item, Table.WALLET_ID);
        Map<String, Marker> markers = new HashMap<>();
        for (Map.Entry<String, AttributeValue> attribute : item.entrySet()) {
            if (!attribute.getKey().startsWith(Table.MARKER)) {
                continue;
            }
            String id = attribute.getKey().substring(Table.MARKER.length());
            Map<String, AttributeValue> m = attribute.getValue().m();
            WalletOperation op = new WalletOperation(id, walletId, EntryKind.ofApiName(Attr.string(m, "kind")),
                    Outcome.ofStoredName(Attr.string(m, "outcome")), Attr.number(m, "amount", 0),
                    Attr.string(m, "currency"), Attr.string(m, "reference"),
                    Attr.number(item, Table.MARKER_SEQ + id, 0), Attr.number(item, Table.MARKER_BALANCE + id, 0),
                    Instant.ofEpochMilli(Attr.number(m, "at", 0)));
            markers.put(id, new Marker(op, Attr.number(item, Table.MARKER_VERSION + id, 0)));
        }
        return new WalletState(walletId, Attr.string(item, Table.CURRENCY), Attr.number(item, Table.BALANCE, 0),
                Attr.number(item, Table.SEQ, 0), Attr.number(item, Table.VERSION, 0),
                Attr.number(item, Table.HORIZON, 0), markers);
    }
}
