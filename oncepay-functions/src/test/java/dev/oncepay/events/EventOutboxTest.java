package dev.oncepay.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.charge.ChargeTestSupport;
import dev.oncepay.contract.Table;
import dev.oncepay.queue.EventDeliveryJob;
import dev.oncepay.testing.DirectSweep;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.sim.Faults;
import dev.oncepay.testkit.StoreFault;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The outbox through the real entry points: a charge into the charge function whose settlement
 * records its event in the same write, the relay's messages read off the event queue in ElasticMQ,
 * and the reconcile function relaying what a failed send or a crash left marked.
 */
@QuarkusTest
class EventOutboxTest extends ChargeTestSupport {
    /** The test tenant with endpoints: {@code orders} wants every event, {@code refunds} only refunds'. */
    static final String EVENTS_TENANT = "merchant-events";

    @Inject
    DirectSweep sweep;
    @Inject
    ObjectMapper json;

    @BeforeEach
    void eventsTenantAndAnEmptyQueue() {
        tenant = EVENTS_TENANT;
        TestEnvironment.queueProxy().reset();
        TestEnvironment.sqs().purgeQueue(b -> b.queueUrl(TestEnvironment.eventQueueUrl()));
    }

    @Test
    void aSettledChargeRecordsItsEventInTheSameWriteAndRelaysItToEachEndpointThatWantsIt() throws IOException {
        String reference = "order-" + newKey();
        ApiResponse charged = post(newKey(), body(4200, "EUR", reference));
        assertEquals(201, charged.status(), charged.body());
        String id = charged.json().get("id").asText();

        List<EventDeliveryJob> jobs = drainEventQueue();
        assertEquals(1, jobs.size(), "orders wants payment.succeeded, refunds does not: " + jobs);
        EventDeliveryJob job = jobs.get(0);
        assertEquals("orders", job.endpoint());
        assertEquals("evt_" + id + "_2", job.eventId());
        assertEquals("payment.succeeded", job.eventType());
        assertEquals(2, job.sequence(), "the second history entry: created, then succeeded");
        assertEquals(0, job.attempt());
        JsonNode event = json.readTree(job.body());
        assertEquals(job.eventId(), event.get("id").asText());
        assertEquals("payment.succeeded", event.get("type").asText());
        assertEquals(2, event.get("sequence").asLong());
        assertEquals(EVENTS_TENANT, event.get("tenant").asText());
        JsonNode data = event.get("data");
        assertEquals("payment", data.get("object").asText());
        assertEquals(id, data.get("id").asText());
        assertEquals("succeeded", data.get("status").asText());
        assertEquals(4200, data.get("amount").asLong());
        assertEquals("EUR", data.get("currency").asText());
        assertEquals(reference, data.get("reference").asText());
        assertEquals(charged.json().get("providerPaymentId").asText(), data.get("providerPaymentId").asText());

        Map<String, AttributeValue> item = storedPayment(id);
        List<AttributeValue> history = item.get(Table.HISTORY).l();
        assertEquals("payment.succeeded", history.get(1).m().get(Table.HISTORY_EVENT).s(), "the event is the settling entry");
        assertFalse(history.get(0).m().containsKey(Table.HISTORY_EVENT), "a created payment is no event");
        assertFalse(item.containsKey(Table.OUTBOX_SHARD), "relayed: the marker is gone");
        assertFalse(item.containsKey(Table.OUTBOX_AT));
        assertEquals("2", item.get(Table.RELAYED_SEQ).n());
    }

    @Test
    void aRelayCostsOneSendAndOneWriteAndATenantWithoutEndpointsPaysNothing() {
        // Warm: the account's breaker item is read once per cache period, by whichever charge comes first.
        assertEquals(201, post(newKey(), body(1000, "EUR", "order-" + newKey())).status());
        drainEventQueue();
        dynamoRequests.reset();
        assertEquals(201, post(newKey(), body(1000, "EUR", "order-" + newKey())).status());
        Map<String, Long> withEvents = dynamoRequests.snapshot();
        assertEquals(1, drainEventQueue().size());

        tenant = "merchant-quiet-" + newKey().substring(0, 8);
        dynamoRequests.reset();
        ApiResponse quiet = post(newKey(), body(1000, "EUR", "order-" + newKey()));
        assertEquals(201, quiet.status());
        Map<String, Long> withoutEvents = dynamoRequests.snapshot();
        assertEquals(List.of(), drainEventQueue(), "nobody wants the quiet tenant's events");

        Map<String, Long> expected = new HashMap<>(withoutEvents);
        expected.merge("UpdateItem", 1L, Long::sum);
        assertEquals(expected, withEvents, "the relay's one extra request: clearing the marker");
        Map<String, AttributeValue> item = storedPayment(quiet.json().get("id").asText());
        assertEquals("payment.succeeded", item.get(Table.HISTORY).l().get(1).m().get(Table.HISTORY_EVENT).s(),
                "the history names the event whoever listens");
        assertFalse(item.containsKey(Table.OUTBOX_SHARD), "no marker where no endpoint listens");
    }

    @Test
    void aQueueThatRefusesTheSendLeavesTheMarkedEventForTheSweepAndThePaymentIsAnsweredAsUsual() {
        TestEnvironment.queueProxy().failNext("SendMessageBatch", "", StoreFault.SERVER_ERROR, 3);
        ApiResponse charged = post(newKey(), body(2500, "EUR", "order-" + newKey()));
        assertEquals(201, charged.status(), "the queue is no part of the payment: " + charged.body());
        String id = charged.json().get("id").asText();
        assertEquals(List.of(), drainEventQueue());
        Map<String, AttributeValue> marked = storedPayment(id);
        assertTrue(marked.containsKey(Table.OUTBOX_SHARD), "the event waits, marked");
        assertNull(marked.get(Table.RELAYED_SEQ));

        sweep.sweepOnly(Set.of());
        assertEquals(List.of(), drainEventQueue(), "within the grace the sweep leaves it to its writer");

        clock.advance(Duration.ofSeconds(3));
        sweep.sweepOnly(Set.of());
        List<EventDeliveryJob> jobs = drainEventQueue();
        assertEquals(List.of("evt_" + id + "_2"), jobs.stream().map(EventDeliveryJob::eventId).toList());
        assertFalse(storedPayment(id).containsKey(Table.OUTBOX_SHARD));
        sweep.sweepOnly(Set.of());
        assertEquals(List.of(), drainEventQueue(), "relayed once");
    }

    @Test
    void aCrashAfterTheSendRelaysTheSameEventAgainWithTheSameIdAndBytes() {
        // The marker's clearing is lost: as if the function died right after the send.
        store.failNext("UpdateItem", Table.RELAYED_SEQ, StoreFault.SERVER_ERROR, 3);
        ApiResponse charged = post(newKey(), body(3100, "EUR", "order-" + newKey()));
        assertEquals(201, charged.status(), charged.body());
        String id = charged.json().get("id").asText();
        List<EventDeliveryJob> first = drainEventQueue();
        assertEquals(1, first.size());
        assertTrue(storedPayment(id).containsKey(Table.OUTBOX_SHARD));

        clock.advance(Duration.ofSeconds(3));
        sweep.sweepOnly(Set.of());
        List<EventDeliveryJob> again = drainEventQueue();
        assertEquals(1, again.size(), "at least once: the event again");
        assertEquals(first.get(0).eventId(), again.get(0).eventId());
        assertEquals(first.get(0).body(), again.get(0).body(), "a redelivery carries the same bytes");
        assertFalse(storedPayment(id).containsKey(Table.OUTBOX_SHARD));
    }

    @Test
    void aSucceededRefundIsAnEventForBothEndpointsWithItsOwnSequence() throws IOException {
        ApiResponse charged = post(newKey(), body(5000, "EUR", "order-" + newKey()));
        String paymentId = charged.json().get("id").asText();
        drainEventQueue();

        ApiResponse refunded = direct.call(HttpApiEvents.postRefund(tenant, paymentId, newKey(), "{\"amount\":2000}"));
        assertEquals(201, refunded.status(), refunded.body());
        String refundId = refunded.json().get("id").asText();
        List<EventDeliveryJob> jobs = drainEventQueue();
        assertEquals(Set.of("orders", "refunds"), Set.copyOf(jobs.stream().map(EventDeliveryJob::endpoint).toList()));
        for (EventDeliveryJob job : jobs) {
            assertEquals("refund.succeeded", job.eventType());
            assertEquals(refundId, job.objectId());
            assertEquals(paymentId, job.paymentId());
            JsonNode data = json.readTree(job.body()).get("data");
            assertEquals("refund", data.get("object").asText());
            assertEquals(paymentId, data.get("paymentId").asText());
            assertEquals(2000, data.get("amount").asLong());
            assertEquals("succeeded", data.get("status").asText());
        }
    }

    @Test
    void anUnknownPaymentHearsNothingUntilTheSweepSettlesItThenOneEventWithTheLaterSequence() throws IOException {
        sim.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(4000));
        ApiResponse unknown = post(newKey(), body(990, "GBP", "order-" + newKey()));
        assertEquals(202, unknown.status(), unknown.body());
        String id = unknown.json().get("id").asText();
        assertEquals(List.of(), drainEventQueue(), "pending is no event: the merchant holds the 202");
        sim.setFaults(Faults.none());

        clock.advance(Duration.ofMinutes(5));
        sweep.sweepOnly(Set.of(id));
        assertEquals("SUCCEEDED", storedPayment(id).get(Table.STATUS).s());
        List<EventDeliveryJob> jobs = drainEventQueue();
        assertEquals(1, jobs.size(), jobs.toString());
        assertEquals("evt_" + id + "_3", jobs.get(0).eventId(), "created, unknown, succeeded");
        assertEquals(3, json.readTree(jobs.get(0).body()).get("sequence").asLong());
        assertEquals("succeeded", json.readTree(jobs.get(0).body()).get("data").get("status").asText());
    }

    @Test
    void aLostAnswerOfTheSettlingWriteKeepsTheEventWhichTheSweepRelays() {
        // The settle commits (move and event), its answer is lost: the run re-reads, the relay never ran.
        store.failNext("UpdateItem", Table.OUTBOX_SHARD, StoreFault.LOST_ANSWER, 1);
        ApiResponse charged = post(newKey(), body(1800, "EUR", "order-" + newKey()));
        assertEquals(201, charged.status(), charged.body());
        String id = charged.json().get("id").asText();
        assertEquals(1, ledgerChargesFor(id));
        Map<String, AttributeValue> item = storedPayment(id);
        assertEquals("SUCCEEDED", item.get(Table.STATUS).s());
        assertEquals(List.of(), drainEventQueue());
        assertTrue(item.containsKey(Table.OUTBOX_SHARD), "the event is written with its move, and waits");

        clock.advance(Duration.ofSeconds(3));
        sweep.sweepOnly(Set.of());
        assertEquals(List.of("evt_" + id + "_2"), drainEventQueue().stream().map(EventDeliveryJob::eventId).toList());
    }

    /** Every message on the event queue, received and deleted. */
    private List<EventDeliveryJob> drainEventQueue() {
        List<EventDeliveryJob> jobs = new ArrayList<>();
        while (true) {
            List<Message> messages = TestEnvironment.sqs().receiveMessage(b -> b.queueUrl(TestEnvironment.eventQueueUrl())
                    .maxNumberOfMessages(10).waitTimeSeconds(0)).messages();
            if (messages.isEmpty()) {
                return jobs;
            }
            for (Message m : messages) {
                try {
                    jobs.add(json.readValue(m.body(), EventDeliveryJob.class));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
                TestEnvironment.sqs().deleteMessage(b -> b.queueUrl(TestEnvironment.eventQueueUrl()).receiptHandle(m.receiptHandle()));
            }
        }
    }
}
