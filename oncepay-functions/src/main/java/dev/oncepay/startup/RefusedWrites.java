package dev.oncepay.startup;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.Transition;
import dev.oncepay.contract.Table;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The store's write path, primed with writes refused by their own conditions so that nothing is
 * written: the settle of a payment that does not exist (the repository's conditional
 * {@code UpdateItem}) and a {@code PutItem} that requires its never-existing item to exist. Both
 * end in the conditional-check failure a replay or a lost race meets. (On DynamoDB each costs one
 * write unit.)
 */
@ApplicationScoped
class RefusedWrites {
    private final PaymentRepository payments;
    private final DynamoDbClient dynamo;
    private final String table;

    RefusedWrites(PaymentRepository payments, DynamoDbClient dynamo, OncepayConfig config) {
        this.payments = payments;
        this.dynamo = dynamo;
        this.table = config.table();
    }

    /** @return what was refused */
    String refuse() {
        boolean settled = payments.apply(ChargePrimer.NEVER_ISSUED_ID, SyntheticEvents.TENANT, new Transition(PaymentStatus.PENDING,
                PaymentStatus.SUCCEEDED, "ch_oncepaypriming", null, "priming", null, OptionalLong.of(1)),
                Actor.chargeRun(1), Instant.now());
        boolean put;
        try {
            dynamo.putItem(b -> b.tableName(table)
                    .item(Map.of(Table.PK, AttributeValue.fromS(ChargePrimer.NEVER_ISSUED_ID + "#priming")))
                    .conditionExpression("attribute_exists(#pk)").expressionAttributeNames(Map.of("#pk", Table.PK)));
            put = true;
        } catch (ConditionalCheckFailedException refused) {
            put = false;
        }
        if (settled || put) {
            throw new IllegalStateException("a priming write was not refused");
        }
        return "UpdateItem, PutItem";
    }
}
