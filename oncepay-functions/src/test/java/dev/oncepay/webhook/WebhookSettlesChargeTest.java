package dev.oncepay.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.charge.ChargePhase;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.sim.WebhookAttempt;
import dev.oncepay.sim.WebhookDelivery;
import dev.oncepay.sim.WebhookEvent;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ComparisonOperator;
import software.amazon.awssdk.services.dynamodb.model.Condition;

/**
 * End to end with the simulator: a payment the charge run could not settle (commit, then
 * timeout) is settled by the provider's webhook, and the client's key then replays the final
 * answer. The charge side is called through its adapter bean (this application exports
 * {@code webhook}); the webhook through the function's entry point.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookSettlesChargeTest extends WebhookChargeSupport {
    private static final String TENANT = "merchant-a";

    @Inject
    PhaseHooks chargePhases;
    @Inject
    WebhookHooks webhookHooks;

    @BeforeEach
    void reset() {
        chargePhases.reset();
        webhookHooks.reset();
        // The charge call commits at the provider, then its answer is late: the run cannot know.
        simulator.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(3000));
    }

    @AfterEach
    void cleanUp() {
        chargePhases.reset();
        simulator.clearWebhookTarget();
        simulator.reset();
    }

    @Test
    void aWebhookSettlesA202AndTheKeyThenReplaysTheFinalAnswer() throws Exception {
        String key = UUID.randomUUID().toString();
        String order = "order_" + key;
        HttpApiResponse accepted = charge(key, order);
        assertEquals(202, accepted.statusCode(), accepted.body());
        JsonNode pending = json.readTree(accepted.body());
        String paymentId = pending.get("id").asText();
        assertEquals("pending", pending.get("status").asText());
        assertEquals(PaymentStatus.UNKNOWN, payments.find(paymentId).orElseThrow().status());

        // The provider's signed event for that charge, through the webhook function.
        WebhookDelivery delivery = simulator.webhookFor(WebhookEvent.SUCCEEDED, paymentId);
        ApiResponse webhook = WebhookRequests.call(WebhookRequests.event("sim", delivery.body(), delivery.signature()));
        assertEquals(200, webhook.status(), webhook.body());
        assertEquals("applied", webhook.json().get("outcome").asText());

        HttpApiResponse replay = charge(key, order);
        assertEquals(201, replay.statusCode(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        JsonNode settled = json.readTree(replay.body());
        assertEquals("succeeded", settled.get("status").asText());
        assertEquals(paymentId, settled.get("id").asText());
        List<LedgerEntry> charges = ledgerFor(paymentId);
        assertEquals(1, charges.size(), "exactly one charge at the provider");
        assertEquals(charges.get(0).id(), settled.get("providerPaymentId").asText());
        assertEquals(charges.get(0).amount(), settled.get("amount").asLong());
    }

    @Test
    void duplicatedAsyncDeliveriesDuringALiveChargeRunSettleItOnce() throws Exception {
        // Real deliveries from the simulator (each event twice), through an API Gateway stand-in.
        simulator.setFaults(simulator.faults().withWebhookDuplicateRate(1.0).withWebhookReorder(true));
        try (ApiGatewayBridge gateway = new ApiGatewayBridge()) {
            simulator.setWebhookTarget(gateway.webhookUrl("sim"), WebhookTestProfile.SIM_SECRET, "sim");
            String key = UUID.randomUUID().toString();
            String order = "order_" + key;
            // Freeze the charge run after the provider call (timed out): its payment is still PENDING.
            chargePhases.parkOnceAfter(ChargePhase.PROVIDER_ANSWERED);
            CompletableFuture<HttpApiResponse> run = CompletableFuture.supplyAsync(() -> charge(key, order));
            assertTrue(chargePhases.awaitParked(), "charge run reached the provider answer");

            assertTrue(simulator.awaitWebhooks(Duration.ofSeconds(20)), "webhooks delivered");
            List<WebhookAttempt> attempts = simulator.webhookAttempts();
            assertEquals(2, attempts.size(), "one event, delivered twice: " + attempts);
            assertTrue(attempts.stream().allMatch(a -> a.status() == 200), attempts.toString());
            String eventId = attempts.get(0).eventId();
            String paymentId = ledgerPaymentIdOf(order);
            assertEquals(PaymentStatus.SUCCEEDED, payments.find(paymentId).orElseThrow().status(),
                    "the webhook settled the PENDING payment of a live run");
            assertEquals(1, webhookHooks.paymentWrites(eventId), "applied once");

            // The run resumes: its fenced settle fails, and it answers with the settled payment.
            chargePhases.release();
            HttpApiResponse answer = run.get(30, TimeUnit.SECONDS);
            assertEquals(201, answer.statusCode(), answer.body());
            assertEquals("succeeded", json.readTree(answer.body()).get("status").asText());

            HttpApiResponse replay = charge(key, order);
            assertEquals(201, replay.statusCode());
            assertEquals("true", replay.header("Idempotent-Replayed"));
            assertEquals(1, ledgerFor(paymentId).size(), "exactly one charge at the provider");

            Map<String, AttributeValue> journal = TestEnvironment.dynamo().getItem(b -> b
                    .tableName(TestEnvironment.TABLE).key(Attr.key("event#sim#" + eventId)).consistentRead(true)).item();
            assertEquals("PROCESSED", Attr.string(journal, Table.EVENT_STATE));
            assertEquals("applied", Attr.string(journal, Table.EVENT_OUTCOME));
            assertEquals(1, journalItemsFor(paymentId), "one journal item for the two deliveries");
            assertNull(payments.find(paymentId).orElseThrow().declineCode());
        }
    }

    private HttpApiResponse charge(String key, String order) {
        return postPayment(TENANT, key, "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"" + order + "\"}");
    }

    private List<LedgerEntry> ledgerFor(String paymentId) {
        return simulator.ledger().stream().filter(c -> c.reference().equals(paymentId)).toList();
    }

    /** The provider sees oncepay's payment id as reference; the merchant's order travels in the description. */
    private String ledgerPaymentIdOf(String order) {
        List<LedgerEntry> all = simulator.ledger();
        assertEquals(1, all.size(), all.toString());
        return all.get(0).reference();
    }

    private static int journalItemsFor(String paymentId) {
        return TestEnvironment.dynamo().scan(b -> b.tableName(TestEnvironment.TABLE).consistentRead(true)
                .scanFilter(Map.of(Table.PAYMENT_ID, Condition.builder().comparisonOperator(ComparisonOperator.EQ)
                        .attributeValueList(AttributeValue.fromS(paymentId)).build(),
                        Table.KIND, Condition.builder().comparisonOperator(ComparisonOperator.EQ)
                                .attributeValueList(AttributeValue.fromS(Table.KIND_EVENT)).build())))
                .count();
    }
}
