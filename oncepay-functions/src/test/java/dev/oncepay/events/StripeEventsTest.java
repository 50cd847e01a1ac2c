package dev.oncepay.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.charge.ChargeTestSupport;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * What a Stripe payment tells its merchant, through the charge function and the event queue: the
 * customer must authenticate ({@code payment.requires_action}, still pending), or the card was
 * declined ({@code payment.failed}).
 */
@QuarkusTest
@TestProfile(StripeEventsProfile.class)
class StripeEventsTest extends ChargeTestSupport {
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeEach
    void stripeTenantWithAnEndpoint() {
        tenant = StripeEventsProfile.TENANT;
        TestEnvironment.sqs().purgeQueue(b -> b.queueUrl(TestEnvironment.eventQueueUrl()));
    }

    ApiResponse pay(String paymentMethod) {
        return direct.call(HttpApiEvents.postPayment(tenant, newKey(), "{\"amount\":4200,\"currency\":\"EUR\","
                + "\"reference\":\"order_" + newKey() + "\",\"paymentMethod\":\"" + paymentMethod + "\"}"));
    }

    @Test
    void aPaymentWaitingForTheCustomerIsARequiresActionEventStillPending() throws IOException {
        ApiResponse answer = pay("pm_card_authenticationRequired");
        assertEquals(202, answer.status(), answer.body());
        String id = answer.json().get("id").asText();

        List<JsonNode> events = events();
        assertEquals(1, events.size(), events.toString());
        assertEquals("payment.requires_action", events.get(0).get("type").asText());
        assertEquals("evt_" + id + "_2", events.get(0).get("id").asText());
        assertEquals("pending", events.get(0).get("data").get("status").asText());
        assertEquals(answer.json().get("providerPaymentId").asText(),
                events.get(0).get("data").get("providerPaymentId").asText());
    }

    @Test
    void aDeclinedCardIsAPaymentFailedEventWithItsDeclineCode() throws IOException {
        ApiResponse answer = pay("pm_card_chargeDeclined");
        assertEquals(402, answer.status(), answer.body());

        List<JsonNode> events = events();
        assertEquals(1, events.size(), events.toString());
        assertEquals("payment.failed", events.get(0).get("type").asText());
        assertEquals("failed", events.get(0).get("data").get("status").asText());
        assertEquals("generic_decline", events.get(0).get("data").get("declineCode").asText());
    }

    /** The bodies of every event on the event queue, received and deleted. */
    private List<JsonNode> events() throws IOException {
        List<Message> messages = TestEnvironment.sqs().receiveMessage(b -> b.queueUrl(TestEnvironment.eventQueueUrl())
                .maxNumberOfMessages(10).waitTimeSeconds(0)).messages();
        List<JsonNode> bodies = new java.util.ArrayList<>();
        for (Message m : messages) {
            bodies.add(JSON.readTree(JSON.readTree(m.body()).get("body").asText()));
            TestEnvironment.sqs().deleteMessage(b -> b.queueUrl(TestEnvironment.eventQueueUrl()).receiptHandle(m.receiptHandle()));
        }
        return bodies;
    }
}
