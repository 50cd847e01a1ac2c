package dev.oncepay.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.charge.ChargeTestSupport;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.delivery.EndpointHealth;
import dev.oncepay.delivery.EventDeliveryProfile;
import dev.oncepay.sim.merchant.MerchantEndpoint;
import dev.oncepay.sim.merchant.MerchantFaults;
import dev.oncepay.sim.merchant.ReceivedDelivery;
import dev.oncepay.testing.EventQueueMapping;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Merchant events end to end: a charge into the charge function, its event relayed to the event
 * queue in ElasticMQ, the SQS event Lambda would send into {@code event-delivery} (the application
 * under test), the signed POST verified and applied by the merchant endpoint, and the operator API
 * that lists and redelivers.
 */
@QuarkusTest
@TestProfile(EventDeliveryProfile.class)
class MerchantEventsEndToEndTest extends ChargeTestSupport {
    static final String ORDERS = TestEnvironment.ORDERS_ENDPOINT;
    final MerchantEndpoint merchant = TestEnvironment.merchant();
    @Inject
    EndpointHealth health;

    @BeforeEach
    void eventsTenantAndAQuietMerchant() {
        tenant = TestEnvironment.EVENTS_TENANT;
        EventQueueMapping.purge();
        TestEnvironment.queueProxy().reset();
        for (String endpoint : List.of(ORDERS, TestEnvironment.REFUNDS_ENDPOINT)) {
            TestEnvironment.dynamo().deleteItem(b -> b.tableName(TestEnvironment.TABLE)
                    .key(Attr.key(Table.endpointItemId(tenant, endpoint))));
        }
        health.forget();
        merchant.reset();
        merchant.clearFaults();
    }

    String charged(long amount) {
        ApiResponse charged = direct.call(HttpApiEvents.postPayment(tenant, newKey(), body(amount, "EUR", "order-" + newKey())));
        assertEquals(201, charged.status(), charged.body());
        return charged.json().get("id").asText();
    }

    ApiResponse operator(String method, String path, String key, String body) {
        HttpApiEvents request = HttpApiEvents.admin(method, path).operator("on-call");
        if (key != null) {
            request = request.header("Idempotency-Key", key);
        }
        return direct.call(body == null ? request : request.body(body));
    }

    @Test
    void aChargeReachesTheMerchantSignedAndTheOperatorSeesItDelivered() {
        String id = charged(4200);
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());

        List<ReceivedDelivery> received = merchant.deliveries(ORDERS);
        assertEquals(1, received.size(), received.toString());
        assertEquals("evt_" + id + "_2", received.get(0).eventId());
        assertTrue(received.get(0).acknowledged(), "the signature verified with the merchant's secret");
        assertEquals("succeeded", merchant.applied().get(id).status());
        assertEquals(0, merchant.counts().rejected());

        ApiResponse listed = operator("GET", "/admin/payments/" + id + "/deliveries", null, null);
        assertEquals(200, listed.status(), listed.body());
        JsonNode lines = listed.json().get("deliveries");
        assertEquals(1, lines.size(), "refunds does not want payment events: " + lines);
        JsonNode line = lines.get(0);
        assertEquals("evt_" + id + "_2", line.get("eventId").asText());
        assertEquals("payment.succeeded", line.get("type").asText());
        assertEquals(ORDERS, line.get("endpoint").asText());
        assertEquals("delivered", line.get("status").asText());
        assertEquals(1, line.get("attempts").asInt());
        assertEquals("200", line.get("lastAnswer").asText());
    }

    @Test
    void aRedeliveryUnderOneKeyQueuesOnceAndTheMerchantDropsTheDuplicate() {
        String id = charged(1500);
        EventQueueMapping.poll(10, 1);
        String eventId = "evt_" + id + "_2";

        String key = newKey();
        ApiResponse first = operator("POST", "/admin/events/" + eventId + "/redeliver", key, null);
        assertEquals(202, first.status(), first.body());
        assertEquals(1, first.json().get("queued").asInt());
        ApiResponse replay = operator("POST", "/admin/events/" + eventId + "/redeliver", key, null);
        assertEquals(202, replay.status(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(1, replay.json().get("queued").asInt());
        assertEquals(1, EventQueueMapping.depth(), "the replay queued nothing");
        ApiResponse otherBody = operator("POST", "/admin/events/" + eventId + "/redeliver", key, "{\"endpoint\":\"orders\"}");
        assertEquals(422, otherBody.status(), otherBody.body());

        EventQueueMapping.poll(10, 1);
        assertEquals(2, merchant.deliveries(ORDERS).size());
        assertEquals(1, merchant.counts().duplicates(), "the same id again: dropped");
        assertEquals(2, merchant.applied().get(id).sequence());
        JsonNode line = operator("GET", "/admin/payments/" + id + "/deliveries", null, null).json().get("deliveries").get(0);
        assertEquals("delivered", line.get("status").asText());
        assertEquals(2, line.get("attempts").asInt());
    }

    @Test
    void aRedeliveryTheEndpointFailsIsRetriedThoughAnEarlierCopyWasAcknowledged() {
        String id = charged(1600);
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());
        String eventId = "evt_" + id + "_2";
        merchant.setFaults(ORDERS, MerchantFaults.NONE.withFailRate(1));

        assertEquals(202, operator("POST", "/admin/events/" + eventId + "/redeliver", newKey(), null).status());
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());

        assertEquals(List.of(200, 500), merchant.deliveries(ORDERS).stream().map(ReceivedDelivery::answer).toList());
        JsonNode line = operator("GET", "/admin/payments/" + id + "/deliveries", null, null).json().get("deliveries").get(0);
        assertEquals("delivered", line.get("status").asText(), "an acknowledged event stays delivered");
        assertEquals("500", line.get("lastAnswer").asText());
        merchant.clearFaults();
        List<Message> putBack = EventQueueMapping.receive(10, 3);
        assertEquals(1, putBack.size(), "the operator's redelivery is put back with its backoff");
        assertEquals(Set.of(), EventQueueMapping.deliver(putBack).failedIds());
        assertEquals(List.of(200, 500, 200), merchant.deliveries(ORDERS).stream().map(ReceivedDelivery::answer).toList());
        assertEquals(3, operator("GET", "/admin/payments/" + id + "/deliveries", null, null).json().get("deliveries")
                .get(0).get("attempts").asInt());
    }

    @Test
    void aRedeliverySinceATimeQueuesEveryDeliveryOfTheEndpointSinceThen() {
        Instant since = clock.instant().minusMillis(1);
        String first = charged(700);
        String second = charged(800);
        EventQueueMapping.poll(10, 1);
        assertEquals(2, merchant.deliveries(ORDERS).size());

        ApiResponse listed = operator("GET", "/admin/endpoints/" + tenant + "/" + ORDERS + "/deliveries?since=" + since, null, null);
        assertEquals(200, listed.status(), listed.body());
        List<String> listedIds = listed.json().get("deliveries").findValuesAsText("eventId");
        assertTrue(listedIds.containsAll(List.of("evt_" + first + "_2", "evt_" + second + "_2")), listedIds.toString());

        ApiResponse redelivered = operator("POST", "/admin/endpoints/" + tenant + "/" + ORDERS + "/redeliver", newKey(),
                "{\"since\":\"" + since + "\"}");
        assertEquals(202, redelivered.status(), redelivered.body());
        assertEquals(listedIds.size(), redelivered.json().get("queued").asInt());
        assertNull(redelivered.json().get("nextSince"));
        merchant.reset();
        EventQueueMapping.poll(10, 1);
        List<String> again = merchant.deliveries(ORDERS).stream().map(ReceivedDelivery::eventId).toList();
        assertTrue(again.containsAll(List.of("evt_" + first + "_2", "evt_" + second + "_2")), again.toString());
    }

    @Test
    void aBadRedeliveryIsRefusedWithItsReasonAndQueuesNothing() {
        String id = charged(900);
        EventQueueMapping.poll(10, 1);
        String eventPath = "/admin/events/evt_" + id + "_2/redeliver";
        String endpointPath = "/admin/endpoints/" + tenant + "/" + ORDERS + "/redeliver";

        assertEquals(400, operator("POST", eventPath, null, null).status(), "no Idempotency-Key");
        assertEquals(400, operator("POST", endpointPath, newKey(), "{\"since\":\"yesterday\"}").status());
        assertEquals(400, operator("POST", endpointPath, newKey(), "{}").status(), "since is required");
        assertEquals(400, operator("POST", eventPath, newKey(), "{\"endpoints\":\"orders\"}").status(), "an unknown field");
        assertEquals(400, operator("POST", eventPath, newKey(), "not json").status());
        assertEquals(404, operator("POST", "/admin/events/evt_" + id + "_1/redeliver", newKey(), null).status(),
                "the created entry is no event");
        assertEquals(404, operator("POST", "/admin/events/evt_pay_00000000000000000000000000000000_2/redeliver",
                newKey(), null).status());
        assertEquals(404, operator("POST", eventPath, newKey(), "{\"endpoint\":\"refunds\"}").status(),
                "refunds does not want payment events");
        assertEquals(404, operator("POST", "/admin/endpoints/" + tenant + "/nowhere/redeliver", newKey(),
                "{\"since\":\"2026-01-01T00:00:00Z\"}").status());
        assertEquals(404, operator("GET", "/admin/endpoints/other-tenant/" + ORDERS + "/deliveries", null, null).status());
        ApiResponse merchantItself = direct.call(HttpApiEvents.admin("POST", eventPath).tenant(tenant)
                .header("Idempotency-Key", newKey()));
        assertEquals(403, merchantItself.status(), "a merchant's token is no operator");
        assertEquals(0, EventQueueMapping.depth(), "nothing was queued");
    }
}
