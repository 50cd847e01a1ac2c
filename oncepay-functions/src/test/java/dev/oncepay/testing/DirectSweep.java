package dev.oncepay.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.function.ReconcileFunction;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.RefundRepository;
import dev.oncepay.reconcile.ScheduledEvent;
import dev.oncepay.reconcile.SweepSummary;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Runs the reconcile sweep where the application exports another function (the mock event server
 * invokes only the exported one): the reconcile function's entry method, with a real EventBridge
 * scheduled event read as its handler reads it.
 */
@ApplicationScoped
public class DirectSweep {
    /** A real EventBridge "Scheduled Event" as a rule with {@code rate(1 minute)} delivers it: id, time. */
    public static final String SCHEDULED_EVENT = """
            {
              "version": "0",
              "id": "%s",
              "detail-type": "Scheduled Event",
              "source": "aws.events",
              "account": "123456789012",
              "time": "%s",
              "region": "eu-central-1",
              "resources": ["arn:aws:events:eu-central-1:123456789012:rule/oncepay-reconcile-every-minute"],
              "detail": {}
            }
            """;

    @Inject
    ReconcileFunction function;
    @Inject
    ObjectMapper json;
    @Inject
    TestClock clock;
    @Inject
    PaymentRepository payments;

    /** One sweep over these payments alone, at the test clock's time. */
    public SweepSummary sweepOnly(Set<String> paymentIds) {
        return sweepOnly(paymentIds, Set.of());
    }

    /** One sweep over these payments and refunds alone, at the test clock's time. */
    public SweepSummary sweepOnly(Set<String> paymentIds, Set<String> refundIds) {
        leaveInSweepIndexOnly(paymentIds);
        leaveInIndex(refundIds, RefundRepository.pk(""), "refund#");
        String event = SCHEDULED_EVENT.formatted(UUID.randomUUID(), clock.instant().truncatedTo(ChronoUnit.SECONDS));
        try {
            return function.reconcile(json.readValue(event, ScheduledEvent.class));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Removes every other payment in the sweep index (other tests' leftovers), so that a sweep meets
     * only a test's own payments: it would otherwise ask about them, or re-send their charges.
     */
    public void leaveInSweepIndexOnly(Set<String> paymentIds) {
        leaveInIndex(paymentIds, PaymentRepository.pk(""), "");
    }

    /** Removes every item of the sweep partitions {@code <partition><shard>} but those of {@code ids}. */
    private void leaveInIndex(Set<String> ids, String itemPrefix, String partition) {
        DynamoDbClient dynamo = TestEnvironment.dynamo();
        for (int shard = 0; shard < payments.sweepShards(); shard++) {
            String s = partition + shard;
            dynamo.queryPaginator(b -> b.tableName(TestEnvironment.TABLE).indexName(Table.SWEEP_INDEX)
                    .keyConditionExpression("#shard = :shard")
                    .expressionAttributeNames(Map.of("#shard", Table.SWEEP_SHARD))
                    .expressionAttributeValues(Map.of(":shard", Attr.s(s))))
                    .items().stream()
                    .filter(item -> !ids.contains(Attr.string(item, Table.PK).substring(itemPrefix.length())))
                    .forEach(item -> dynamo.deleteItem(d -> d.tableName(TestEnvironment.TABLE)
                            .key(Map.of(Table.PK, item.get(Table.PK)))));
        }
    }
}
