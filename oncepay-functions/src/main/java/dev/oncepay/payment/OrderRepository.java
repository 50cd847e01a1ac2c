package dev.oncepay.payment;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.store.TableItems;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Order items: one per (tenant, order reference), naming the one payment bound to the order.
 * Every write is one conditional PutItem or DeleteItem on that item; the condition always admits
 * the payment that writes it, so an SDK retry of a committed write succeeds again.
 */
@ApplicationScoped
public class OrderRepository {
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
     * Binds the order to {@code payment}: if the order is free, or already bound to it, or still
     * bound to {@code replacing} (a payment the caller read as definitely failed: of two requests
     * replacing it, one wins).
     *
     * @return whether the order is bound to {@code payment}
     */
    public boolean bind(Payment payment, Optional<String> replacing, Instant now) {
        Map<String, AttributeValue> item = new HashMap<>();
        String orderId = orderId(payment.tenant(), payment.reference());
        item.put(Table.PK, Attr.s(orderId));
        item.put(Table.KIND, Attr.s(Table.KIND_ORDER));
        item.put(Table.TENANT, Attr.s(payment.tenant()));
        item.put(Table.PAYMENT_ID, Attr.s(payment.id()));
        item.put(Table.AMOUNT, Attr.n(payment.amount()));
        item.put(Table.CURRENCY, Attr.s(payment.currency()));
        item.put(Table.BOUND_AT, Attr.s(now.toString()));
        Map<String, String> names = new HashMap<>();
        names.put("#payment", Table.PAYMENT_ID);
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":mine", Attr.s(payment.id()));
        String condition;
        if (replacing.isPresent()) {
            condition = "#payment = :replaced OR #payment = :mine";
            values.put(":replaced", Attr.s(replacing.get()));
        } else {
            condition = "attribute_not_exists(#pk) OR #payment = :mine";
            names.put("#pk", Table.PK);
        }
        try {
            dynamo.putItem(b -> b.tableName(table).item(item).conditionExpression(condition)
                    .expressionAttributeNames(names).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException boundElsewhere) {
            return false;
        }
    }

    /** The order's binding, read consistently; empty while no payment is bound to it. */
    public Optional<OrderBinding> find(String tenant, String reference) {
        return TableItems.readConsistently(dynamo, table, orderId(tenant, reference)).map(item -> new OrderBinding(
                Attr.string(item, Table.PK), Attr.string(item, Table.TENANT), Attr.string(item, Table.PAYMENT_ID),
                Attr.number(item, Table.AMOUNT, 0), Attr.string(item, Table.CURRENCY),
                Instant.parse(Attr.string(item, Table.BOUND_AT))));
    }

    /**
     * Frees the order of {@code payment}, a payment whose charge provably never left (it is about
     * to be deleted); a no-op if the order is bound to another payment or to none.
     */
    public void unbind(Payment payment) {
        try {
            dynamo.deleteItem(b -> b.tableName(table).key(Attr.key(orderId(payment.tenant(), payment.reference())))
                    .conditionExpression("#payment = :mine")
                    .expressionAttributeNames(Map.of("#payment", Table.PAYMENT_ID))
                    .expressionAttributeValues(Map.of(":mine", Attr.s(payment.id()))));
        } catch (ConditionalCheckFailedException notOurs) {
            // bound to another payment or to none: nothing of ours to free
        }
    }
}
