package dev.oncepay.payment;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.store.TableItems;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Order items: one per (tenant, order reference), naming the one payment bound to the order and
 * keeping the set of every payment bound to it. Every write is one conditional UpdateItem on that
 * item; the condition always admits the payment that writes it, so an SDK retry of a committed
 * write succeeds again.
 */
@ApplicationScoped
public class OrderRepository {
    /** The attributes a bind and an include write (DynamoDB refuses names an expression does not use). */
    private static final Map<String, String> BINDING_NAMES = Map.of("#kind", Table.KIND, "#tenant", Table.TENANT,
            "#payment", Table.PAYMENT_ID, "#amount", Table.AMOUNT, "#currency", Table.CURRENCY,
            "#boundAt", Table.BOUND_AT, "#payments", Table.ORDER_PAYMENTS);
    private final DynamoDbClient dynamo;
    private final String table;

    public OrderRepository(DynamoDbClient dynamo, OncepayConfig config) {
        this.dynamo = dynamo;
        this.table = config.table();
    }

    public static String orderId(String tenant, String reference) {
        return Table.orderItemId(tenant, reference);
    }

    /**
     * Binds the order to {@code payment} and adds it to the order's payments: if no payment is
     * bound, or this one already is (a takeover, an SDK retry), or {@code replacing} still is (a
     * payment the caller read as no longer holding the order: of two requests replacing it, one
     * wins).
     *
     * @return whether the order is bound to {@code payment}
     */
    public boolean bind(Payment payment, Optional<String> replacing, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>(bindingValues(payment, now));
        String condition;
        if (replacing.isPresent()) {
            condition = "#payment = :replaced OR #payment = :mine";
            values.put(":replaced", Attr.s(replacing.get()));
        } else {
            condition = "attribute_not_exists(#payment) OR #payment = :mine";
        }
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(orderId(payment.tenant(), payment.reference())))
                    .updateExpression("SET #kind = :kind, #tenant = :tenant, #payment = :mine, #amount = :amount,"
                            + " #currency = :currency, #boundAt = :now ADD #payments :mineSet")
                    .conditionExpression(condition).expressionAttributeNames(BINDING_NAMES).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException boundElsewhere) {
            return false;
        }
    }

    /**
     * The order item, read consistently; empty if no payment was ever bound to the order. Its
     * payments are listed by id (a set has no order).
     */
    public Optional<Order> find(String tenant, String reference) {
        return TableItems.readConsistently(dynamo, table, orderId(tenant, reference)).map(item -> new Order(
                Attr.string(item, Table.PK), Attr.string(item, Table.TENANT),
                Optional.ofNullable(Attr.string(item, Table.PAYMENT_ID)),
                Optional.ofNullable(Attr.string(item, Table.BOUND_AT)).map(Instant::parse),
                item.containsKey(Table.ORDER_PAYMENTS)
                        ? item.get(Table.ORDER_PAYMENTS).ss().stream().sorted().toList() : List.of()));
    }

    /**
     * Adds {@code payment} to its order's payments, unconditionally, and binds the order to it if
     * no payment is bound: for a payment an operator is resolving as succeeded, which may never
     * have bound its order (its tenant's guard was off when it was sent).
     */
    public void include(Payment payment, Instant now) {
        dynamo.updateItem(b -> b.tableName(table).key(Attr.key(orderId(payment.tenant(), payment.reference())))
                .updateExpression("SET #kind = :kind, #tenant = :tenant, #payment = if_not_exists(#payment, :mine),"
                        + " #amount = if_not_exists(#amount, :amount), #currency = if_not_exists(#currency, :currency),"
                        + " #boundAt = if_not_exists(#boundAt, :now) ADD #payments :mineSet")
                .expressionAttributeNames(BINDING_NAMES).expressionAttributeValues(bindingValues(payment, now)));
    }

    /** The values a bind and an include write: the payment, its amount and currency, the time. */
    private static Map<String, AttributeValue> bindingValues(Payment payment, Instant now) {
        return Map.of(":kind", Attr.s(Table.KIND_ORDER), ":tenant", Attr.s(payment.tenant()), ":mine",
                Attr.s(payment.id()), ":amount", Attr.n(payment.amount()), ":currency", Attr.s(payment.currency()),
                ":now", Attr.s(now.toString()), ":mineSet", AttributeValue.fromSs(List.of(payment.id())));
    }

    /**
     * Frees the order of {@code payment}, a payment whose charge provably never left (it is about
     * to be deleted), and drops it from the order's payments: the order item goes with it if it was
     * the order's only payment, so an unsent first payment leaves nothing behind. A no-op if the
     * order is bound to another payment or to none.
     */
    public void unbind(Payment payment) {
        String orderId = orderId(payment.tenant(), payment.reference());
        try {
            dynamo.deleteItem(b -> b.tableName(table).key(Attr.key(orderId))
                    .conditionExpression("#payment = :mine AND size(#payments) = :one")
                    .expressionAttributeNames(Map.of("#payment", Table.PAYMENT_ID, "#payments", Table.ORDER_PAYMENTS))
                    .expressionAttributeValues(Map.of(":mine", Attr.s(payment.id()), ":one", Attr.n(1))));
            return;
        } catch (ConditionalCheckFailedException notOnlyOurs) {
            // the order had other payments (or is not ours): keep them
        }
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(orderId))
                    .updateExpression("REMOVE #payment, #amount, #currency, #boundAt DELETE #payments :mineSet")
                    .conditionExpression("#payment = :mine")
                    .expressionAttributeNames(Map.of("#payment", Table.PAYMENT_ID, "#amount", Table.AMOUNT,
                            "#currency", Table.CURRENCY, "#boundAt", Table.BOUND_AT, "#payments", Table.ORDER_PAYMENTS))
                    .expressionAttributeValues(Map.of(":mine", Attr.s(payment.id()),
                            ":mineSet", AttributeValue.fromSs(List.of(payment.id())))));
        } catch (ConditionalCheckFailedException notOurs) {
            // bound to another payment or to none: nothing of ours to free
        }
    }
}
