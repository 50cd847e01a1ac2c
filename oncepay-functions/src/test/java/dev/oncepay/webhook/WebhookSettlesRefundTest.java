package dev.oncepay.webhook;

import static dev.oncepay.webhook.WebhookRequests.call;
import static dev.oncepay.webhook.WebhookRequests.event;
import static dev.oncepay.webhook.WebhookRequests.newEventId;
import static dev.oncepay.webhook.WebhookRequests.signNow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.Refund;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A refund the refund run could not settle (executed, then its answer lost) is settled by the
 * provider's {@code refund.succeeded} / {@code refund.failed} webhook, through the webhook function;
 * a failure gives the amount back, and nothing moves a refund backwards.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookSettlesRefundTest extends WebhookChargeSupport {
    private final String tenant = "merchant-" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aRefundSucceededEventSettlesAPendingRefundOnceAndItsReplayAnswersIt() throws IOException {
        String paymentId = captured(5_000);
        String key = UUID.randomUUID().toString();
        JsonNode pending = pendingRefund(paymentId, key, 2_000);
        Refund atProvider = simulator.refunds().get(0);
        String body = refundEvent("refund.succeeded", atProvider, "succeeded");

        ApiResponse first = call(event("sim", body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        ApiResponse again = call(event("sim", body, signNow(WebhookTestProfile.SIM_SECRET, body)));

        assertEquals("applied", first.json().get("outcome").asText(), first.body());
        assertTrue(again.json().get("duplicate").asBoolean());
        HttpApiResponse replay = handle(HttpApiEvents.postRefund(tenant, paymentId, key, "{\"amount\":2000}"));
        assertEquals(201, replay.statusCode(), replay.body());
        JsonNode settled = json.readTree(replay.body());
        assertEquals(pending.get("id"), settled.get("id"));
        assertEquals(atProvider.id(), settled.get("providerRefundId").asText());
        assertEquals(1, simulator.refunds().size());
        assertEquals(2_000, held(paymentId));
    }

    @Test
    void aRefundFailedEventFailsItGivesTheAmountBackAndALateSuccessGoesToReview() throws IOException {
        String paymentId = captured(5_000);
        String key = UUID.randomUUID().toString();
        JsonNode pending = pendingRefund(paymentId, key, 5_000);
        Refund atProvider = simulator.refunds().get(0);
        assertEquals(5_000, held(paymentId));
        String failed = refundEvent("refund.failed", atProvider, "failed");

        ApiResponse applied = call(event("sim", failed, signNow(WebhookTestProfile.SIM_SECRET, failed)));

        assertEquals("applied", applied.json().get("outcome").asText(), applied.body());
        HttpApiResponse replay = handle(HttpApiEvents.postRefund(tenant, paymentId, key, "{\"amount\":5000}"));
        assertEquals(402, replay.statusCode(), replay.body());
        assertEquals(pending.get("id").asText(), json.readTree(replay.body()).get("refundId").asText());
        assertEquals(0, held(paymentId), "the provider proved it failed: the amount is free again");

        String late = refundEvent("refund.succeeded", atProvider, "succeeded");
        ApiResponse conflict = call(event("sim", late, signNow(WebhookTestProfile.SIM_SECRET, late)));
        assertEquals("conflict", conflict.json().get("outcome").asText(), conflict.body());
        HttpApiResponse shown = handle(HttpApiEvents.getRefund(tenant, paymentId, pending.get("id").asText()));
        assertEquals("needs_review", json.readTree(shown.body()).get("status").asText(),
                "a success after a failure is a contradiction for a human, never silently applied");
    }

    @Test
    void anEventForARefundNobodyMadeIsJournaledNotApplied() throws IOException {
        String paymentId = captured(1_000);
        ObjectNode stray = (ObjectNode) json.readTree(refundEvent("refund.succeeded",
                new Refund("re_stray", "ch_stray", 1_000, "EUR", null, "ref_" + "0".repeat(32), Map.of(), "k",
                        java.time.Instant.now()), "succeeded"));
        String body = stray.toString();

        ApiResponse answer = call(event("sim", body, signNow(WebhookTestProfile.SIM_SECRET, body)));

        assertEquals(200, answer.status());
        assertEquals("unknown_payment", answer.json().get("outcome").asText());
        assertEquals(0, held(paymentId));
    }

    @Test
    void stripesOwnRefundEventsOverHttpSettleAPendingStripeRefund() throws Exception {
        String stripeTenant = "merchant-stripe";
        HttpApiResponse charged = postPayment(stripeTenant, UUID.randomUUID().toString(), "{\"amount\":3000,"
                + "\"currency\":\"EUR\",\"reference\":\"order-" + UUID.randomUUID() + "\",\"paymentMethod\":\"pm_card_visa\"}");
        assertEquals(201, charged.statusCode(), charged.body());
        String paymentId = json.readTree(charged.body()).get("id").asText();
        try (ApiGatewayBridge gateway = new ApiGatewayBridge()) {
            simulator.stripe().setWebhookTarget(gateway.webhookUrl("stripe"), WebhookTestProfile.STRIPE_SECRET);
            // Stripe answers the refund pending and settles it a moment later, telling us by its events alone.
            simulator.setFaults(Faults.none().withNonFinalRate(1.0).withRefundSettleMs(100));
            HttpApiResponse pending = handle(HttpApiEvents.postRefund(stripeTenant, paymentId,
                    UUID.randomUUID().toString(), "{\"amount\":1000}"));
            assertEquals(202, pending.statusCode(), pending.body());
            String refundId = json.readTree(pending.body()).get("id").asText();

            // Answered once the webhook function has applied Stripe's refund.updated (the settle's event).
            long until = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
            while (simulator.stripe().webhookAttempts().stream()
                    .noneMatch(a -> a.type().equals("refund.updated") && a.delivered()) && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            assertTrue(simulator.stripe().awaitWebhooks(java.time.Duration.ofSeconds(20)));
            assertTrue(simulator.stripe().webhookAttempts().stream().allMatch(a -> a.status() == 200),
                    () -> simulator.stripe().webhookAttempts().toString());
            HttpApiResponse shown = handle(HttpApiEvents.getRefund(stripeTenant, paymentId, refundId));
            assertEquals("succeeded", json.readTree(shown.body()).get("status").asText(), shown.body());
        } finally {
            simulator.setFaults(Faults.none());
            simulator.stripe().clearWebhookTarget();
        }
    }

    private String captured(long amount) throws IOException {
        HttpApiResponse charged = postPayment(tenant, UUID.randomUUID().toString(),
                "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"order-" + UUID.randomUUID() + "\"}");
        assertEquals(201, charged.statusCode(), charged.body());
        return json.readTree(charged.body()).get("id").asText();
    }

    /** A refund the provider executes while its answer never arrives: 202 pending. */
    private JsonNode pendingRefund(String paymentId, String key, long amount) throws IOException {
        simulator.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(6_000));
        HttpApiResponse pending = handle(HttpApiEvents.postRefund(tenant, paymentId, key,
                "{\"amount\":" + amount + "}"));
        simulator.setFaults(Faults.none());
        assertEquals(202, pending.statusCode(), pending.body());
        return json.readTree(pending.body());
    }

    /** The generic PSP's refund event: {@code data} is the refund as its API shows it. */
    private String refundEvent(String type, Refund refund, String status) throws IOException {
        ObjectNode event = json.createObjectNode();
        event.put("id", newEventId());
        event.put("type", type);
        event.put("created", java.time.Instant.now().getEpochSecond());
        ObjectNode data = event.putObject("data");
        data.put("id", refund.id());
        data.put("object", "refund");
        data.put("charge", refund.charge());
        data.put("amount", refund.amount());
        data.put("currency", refund.currency());
        data.put("status", status);
        data.put("reference", refund.reference());
        return json.writeValueAsString(event);
    }

    private long held(String paymentId) {
        Map<String, AttributeValue> item = TestEnvironment.dynamo().getItem(b -> b.tableName(TestEnvironment.TABLE)
                .consistentRead(true).key(Map.of(Table.PK, AttributeValue.fromS("payment#" + paymentId)))).item();
        return Attr.number(item, Table.REFUND_HELD, 0);
    }
}
