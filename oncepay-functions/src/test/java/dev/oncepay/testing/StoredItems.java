package dev.oncepay.testing;

import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What the application really stored, read with the test's own client (never the application's
 * beans): the oracle for "nothing was stored" and "the old item is still there".
 */
public final class StoredItems {
    private StoredItems() {
    }

    /** Every item of {@code tenant} (keys and payments), by a full consistent scan. */
    public static List<Map<String, AttributeValue>> ofTenant(String tenant) {
        return TestEnvironment.dynamo().scanPaginator(b -> b.tableName(TestEnvironment.TABLE).consistentRead(true)
                .filterExpression("#tenant = :tenant")
                .expressionAttributeNames(Map.of("#tenant", Table.TENANT))
                .expressionAttributeValues(Map.of(":tenant", Attr.s(tenant))))
                .items().stream().toList();
    }

    /** Number of items in the whole table. */
    public static long count() {
        return TestEnvironment.dynamo().scanPaginator(b -> b.tableName(TestEnvironment.TABLE).consistentRead(true))
                .items().stream().count();
    }

    /** The idempotency-key item of {@code key} for {@code tenant}, as stored (expired or not). */
    public static Optional<Map<String, AttributeValue>> keyItem(String tenant, String key) {
        return item(new IdempotencyKey(tenant, key).storageId());
    }

    /** The payment item of {@code paymentId}, as stored. */
    public static Optional<Map<String, AttributeValue>> paymentItem(String paymentId) {
        return item(PaymentRepository.pk(paymentId));
    }

    public static Optional<Map<String, AttributeValue>> item(String pk) {
        Map<String, AttributeValue> item = TestEnvironment.dynamo()
                .getItem(b -> b.tableName(TestEnvironment.TABLE).key(Attr.key(pk)).consistentRead(true)).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item);
    }
}
