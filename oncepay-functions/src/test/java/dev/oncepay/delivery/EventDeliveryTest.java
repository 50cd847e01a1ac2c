package dev.oncepay.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.queue.EventDeliveryJob;
import dev.oncepay.sim.merchant.MerchantEndpoint;
import dev.oncepay.sim.merchant.MerchantFaults;
import dev.oncepay.sim.merchant.ReceivedDelivery;
import dev.oncepay.testing.EventQueueMapping;
import dev.oncepay.testing.EventSourceMapping.Delivery;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.StoreFault;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Event delivery through its entry point: jobs on the event queue in ElasticMQ, the SQS event Lambda
 * would send into the {@code event-delivery} function, real HTTP to the merchant endpoint (which
 * verifies the signatures and counts what it received), and the records in dynalite.
 */
@QuarkusTest
@TestProfile(EventDeliveryProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class EventDeliveryTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TENANT = TestEnvironment.EVENTS_TENANT;
    private static final String ORDERS = TestEnvironment.ORDERS_ENDPOINT;
    private static final String REFUNDS = TestEnvironment.REFUNDS_ENDPOINT;

    @Inject
    DeliveryRepository deliveries;
    @Inject
    EndpointHealth health;
    @Inject
    RecordingMetrics metrics;

    MerchantEndpoint merchant = TestEnvironment.merchant();

    @BeforeEach
    void fresh() {
        EventQueueMapping.purge();
        TestEnvironment.queueProxy().reset();
        TestEnvironment.storeProxy().reset();
        for (String endpoint : List.of(ORDERS, REFUNDS)) {
            TestEnvironment.dynamo().deleteItem(b -> b.tableName(TestEnvironment.TABLE)
                    .key(Attr.key(Table.endpointItemId(TENANT, endpoint))));
        }
        health.forget();
        merchant.reset();
        merchant.clearFaults();
        merchant.setSecrets(ORDERS, TestEnvironment.ORDERS_SECRETS);
        merchant.setSecrets(REFUNDS, TestEnvironment.REFUNDS_SECRETS);
    }

    @AfterEach
    void healthy() {
        TestEnvironment.queueProxy().reset();
        TestEnvironment.storeProxy().reset();
        merchant.clearFaults();
    }

    @Test
    void anAcknowledgedDeliveryIsVerifiedByTheMerchantRecordedAndCounted() {
        EventDeliveryJob job = job(ORDERS, "payment.succeeded", "succeeded");
        int lagBefore = metrics.samples(Metrics.EVENT_DELIVERY_LAG).size();
        send(job);

        Delivery delivered = EventQueueMapping.poll(10, 1);

        assertEquals(Set.of(), delivered.failedIds(), String.valueOf(delivered.answer()));
        List<ReceivedDelivery> received = merchant.deliveries(ORDERS);
        assertEquals(1, received.size());
        assertEquals(200, received.get(0).answer(), "the merchant verified the signature");
        assertEquals(job.eventId(), received.get(0).eventId());
        assertEquals(1, merchant.applied().get(job.objectId()).sequence());
        DeliveryRecord record = deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow();
        assertEquals(DeliveryStatus.DELIVERED, record.status());
        assertEquals(1, record.attempts());
        assertEquals("200", record.lastAnswer());
        assertTrue(record.deliveredAt().isPresent());
        assertTrue(record.nextAttemptAt().isEmpty());
        assertEquals(job.paymentId(), record.paymentId());
        assertEquals("payment.succeeded", record.eventType());
        assertEquals(Instant.ofEpochMilli(job.eventAtMs()), record.eventAt());
        assertEquals(lagBefore + 1, metrics.samples(Metrics.EVENT_DELIVERY_LAG).size());
        assertEquals(0, EventQueueMapping.depth(), "nothing put back");

        assertEquals(List.of(record), deliveries.findAll(List.of(record.key(),
                new DeliveryKey(TENANT, REFUNDS, job.eventId()))), "a key without a record is left out");
        assertTrue(deliveries.since(TENANT, ORDERS, Instant.ofEpochMilli(job.eventAtMs()), 50).contains(record));
        assertFalse(deliveries.since(TENANT, ORDERS, Instant.ofEpochMilli(job.eventAtMs() + 1), 50).contains(record));
    }

    @Test
    void duringARotationAMerchantWithOnlyTheOldOrOnlyTheNewSecretAccepts() {
        List<String> secrets = TestEnvironment.ORDERS_SECRETS;
        merchant.setSecrets(ORDERS, List.of(secrets.get(1)));
        EventDeliveryJob old = job(ORDERS, "payment.succeeded", "succeeded");
        send(old);
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());
        merchant.setSecrets(ORDERS, List.of(secrets.get(0)));
        EventDeliveryJob next = job(ORDERS, "payment.succeeded", "succeeded");
        send(next);
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());
        merchant.setSecrets(ORDERS, List.of("whsec_someone_else"));
        EventDeliveryJob neither = job(ORDERS, "payment.succeeded", "succeeded");
        send(neither);
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());

        assertEquals(DeliveryStatus.DELIVERED, deliveries.find(TENANT, ORDERS, old.eventId()).orElseThrow().status());
        assertEquals(DeliveryStatus.DELIVERED, deliveries.find(TENANT, ORDERS, next.eventId()).orElseThrow().status());
        DeliveryRecord refused = deliveries.find(TENANT, ORDERS, neither.eventId()).orElseThrow();
        assertEquals(DeliveryStatus.RETRYING, refused.status());
        assertEquals("401", refused.lastAnswer());
        assertEquals(1, merchant.counts().rejected());
    }

    @Test
    void aFailedAttemptIsRecordedRetryingAndPutBackWithItsBackoffThenDelivered() throws Exception {
        merchant.setFaults(ORDERS, MerchantFaults.NONE.withFailRate(1));
        int failedBefore = metrics.counted(Metrics.EVENT_DELIVERY_FAILED);
        EventDeliveryJob job = job(ORDERS, "payment.failed", "failed");
        send(job);

        Instant before = Instant.now();
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds(), "the endpoint's failure is not the worker's");
        Instant after = Instant.now();

        DeliveryRecord record = deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow();
        assertEquals(DeliveryStatus.RETRYING, record.status());
        assertEquals(1, record.attempts());
        assertEquals("500", record.lastAnswer());
        Instant next = record.nextAttemptAt().orElseThrow();
        // Retry 0: random(0, base 1 s), in whole seconds, at least one.
        assertTrue(!next.isBefore(before.plusSeconds(1)) && !next.isAfter(after.plusSeconds(1)), next.toString());
        assertEquals(failedBefore + 1, metrics.counted(Metrics.EVENT_DELIVERY_FAILED));
        assertEquals(0, EventQueueMapping.receive(10, 0).size(), "the put-back is delayed");
        List<Message> putBack = EventQueueMapping.receive(10, 3);
        assertEquals(1, putBack.size());
        EventDeliveryJob retry = JSON.readValue(putBack.get(0).body(), EventDeliveryJob.class);
        assertEquals(1, retry.attempt());
        assertTrue(retry.firstAttemptAtMs() >= before.toEpochMilli() && retry.firstAttemptAtMs() <= after.toEpochMilli());
        assertEquals(next.toEpochMilli(), retry.dueAtMs());
        assertEquals(job.body(), retry.body(), "the event is identical on every attempt");

        merchant.clearFaults();
        assertEquals(Set.of(), EventQueueMapping.deliver(putBack).failedIds());
        DeliveryRecord delivered = deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow();
        assertEquals(DeliveryStatus.DELIVERED, delivered.status());
        assertEquals(2, delivered.attempts());
        assertEquals(0, health.state(TENANT, ORDERS).consecutiveFailures(), "an acknowledgement ends the rest");
    }

    @Test
    void aFailurePastTheHorizonIsDeadCountedAndNotPutBack() {
        merchant.setFaults(ORDERS, MerchantFaults.NONE.withFailRate(1).withFailStatus(503));
        int deadBefore = metrics.counted(Metrics.EVENT_DELIVERY_DEAD);
        long now = System.currentTimeMillis();
        EventDeliveryJob first = job(ORDERS, "payment.succeeded", "succeeded");
        EventDeliveryJob late = new EventDeliveryJob(first.tenant(), first.endpoint(), first.eventId(), first.eventType(),
                first.objectId(), first.paymentId(), first.sequence(), first.eventAtMs(), first.body(), 30,
                now - Duration.ofHours(72).toMillis() - 1000, now - 1000);
        send(late);

        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());

        DeliveryRecord record = deliveries.find(TENANT, ORDERS, late.eventId()).orElseThrow();
        assertEquals(DeliveryStatus.DEAD, record.status());
        assertEquals("503", record.lastAnswer());
        assertTrue(record.nextAttemptAt().isEmpty());
        assertEquals(deadBefore + 1, metrics.counted(Metrics.EVENT_DELIVERY_DEAD));
        assertEquals(0, EventQueueMapping.depth(), "no put-back after the horizon");
    }

    @Test
    void aRedirectIsAFailedAttemptAndNotFollowed() {
        merchant.setFaults(ORDERS, MerchantFaults.NONE.withRedirect(true));
        EventDeliveryJob job = job(ORDERS, "payment.succeeded", "succeeded");
        send(job);

        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());

        // Followed, the POST would have met the merchant's 404 at /elsewhere.
        assertEquals("redirect 302", deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow().lastAnswer());
        assertEquals(1, merchant.counts().received());
        assertEquals(1, EventQueueMapping.depth(), "put back");
    }

    @Test
    void aStallPastTheCallTimeoutIsAFailedAttemptNamedTimeout() {
        merchant.setFaults(ORDERS, MerchantFaults.NONE.withStall(1, 3000));
        EventDeliveryJob job = job(ORDERS, "payment.succeeded", "succeeded");
        send(job);

        long start = System.nanoTime();
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        DeliveryRecord record = deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow();
        assertEquals(DeliveryStatus.RETRYING, record.status());
        assertEquals("timeout", record.lastAnswer());
        assertTrue(tookMs < 2900, "the call gave up at its timeout (1 s), not the stall's end: " + tookMs + " ms");
    }

    @Test
    void aDarkEndpointCostsOneCallPerRestAndNeverSlowsAnotherEndpoint() {
        merchant.setFaults(ORDERS, MerchantFaults.NONE.withDark(true, 3000));
        List<EventDeliveryJob> toOrders = new ArrayList<>();
        List<EventDeliveryJob> toRefunds = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            toOrders.add(job(ORDERS, "payment.succeeded", "succeeded"));
            toRefunds.add(job(REFUNDS, "refund.succeeded", "succeeded"));
        }
        toOrders.forEach(this::send);
        toRefunds.forEach(this::send);
        List<Message> batch = new ArrayList<>();
        while (batch.size() < 10) {
            batch.addAll(EventQueueMapping.receive(10 - batch.size(), 1));
        }

        long start = System.nanoTime();
        assertEquals(Set.of(), EventQueueMapping.deliver(batch).failedIds());
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertTrue(tookMs < 2500, "five timeouts in parallel cost one call timeout (1 s), not five: " + tookMs + " ms");
        assertEquals(5, merchant.deliveries(REFUNDS).stream().filter(ReceivedDelivery::acknowledged).count());
        assertEquals(5, merchant.deliveries(ORDERS).size(), "the first batch met a healthy-looking endpoint");

        // The dark endpoint's five put-backs keep coming back for 8 s, beside more refunds.
        List<EventDeliveryJob> laterRefunds = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            laterRefunds.add(job(REFUNDS, "refund.failed", "failed"));
        }
        laterRefunds.forEach(this::send);
        long windowStart = System.nanoTime();
        while (System.nanoTime() - windowStart < Duration.ofSeconds(8).toNanos()) {
            Delivery round = EventQueueMapping.poll(10, 1);
            assertEquals(Set.of(), round.failedIds(), String.valueOf(round.answer()));
        }

        assertEquals(10, merchant.deliveries(REFUNDS).stream().filter(ReceivedDelivery::acknowledged).count(),
                "every refund delivered while the other endpoint was dark");
        int probes = merchant.deliveries(ORDERS).size() - 5;
        // Rests of 1-2 s (cap 2 s in tests) and probes that time out at 1 s: at most one call per rest.
        assertTrue(probes >= 1 && probes <= 4, "calls to the dark endpoint in 8 s after the first batch: " + probes);
        for (EventDeliveryJob job : toOrders) {
            DeliveryRecord record = deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow();
            assertEquals(DeliveryStatus.RETRYING, record.status());
        }
        int attempts = toOrders.stream().mapToInt(j -> deliveries.find(TENANT, ORDERS, j.eventId()).orElseThrow().attempts())
                .sum();
        assertEquals(5 + probes, attempts, "a delivery that waited out a rest made no attempt");
    }

    @Test
    void anUnreadableMessageFailsOnlyItself() {
        EventDeliveryJob job = job(ORDERS, "payment.succeeded", "succeeded");
        EventQueueMapping.send("not json at all");
        EventQueueMapping.send("{\"tenant\":\"" + TENANT + "\"}");
        send(job);
        List<Message> batch = new ArrayList<>();
        while (batch.size() < 3) {
            batch.addAll(EventQueueMapping.receive(3 - batch.size(), 1));
        }

        Delivery delivered = EventQueueMapping.deliver(batch);

        Set<String> unreadable = Set.copyOf(batch.stream().filter(m -> !m.body().contains(job.eventId()))
                .map(Message::messageId).toList());
        assertEquals(unreadable, delivered.failedIds());
        assertEquals(DeliveryStatus.DELIVERED, deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow().status());
    }

    @Test
    void aStoreFailureWhileRecordingFailsTheMessageAndItsRedeliveryIsADuplicateNeverUndelivered() {
        EventDeliveryJob job = job(ORDERS, "payment.succeeded", "succeeded");
        send(job);
        TestEnvironment.storeProxy().failNext("UpdateItem", Table.deliveryItemId(TENANT, ORDERS, job.eventId()),
                StoreFault.SERVER_ERROR, 3);

        Delivery first = EventQueueMapping.poll(10, 1);

        assertEquals(1, first.failedIds().size(), "the worker could not record it: its queue hands it out again");
        assertTrue(deliveries.find(TENANT, ORDERS, job.eventId()).isEmpty());
        assertEquals(1, merchant.deliveries(ORDERS).size());

        EventQueueMapping.expireVisibility(first.messages());
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());
        assertEquals(1, merchant.counts().duplicates(), "delivered again: at least once");
        DeliveryRecord delivered = deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow();
        assertEquals(DeliveryStatus.DELIVERED, delivered.status());

        // A late copy of the same job meets a failing endpoint: the record stays delivered, nothing is put back.
        merchant.setFaults(ORDERS, MerchantFaults.NONE.withFailRate(1));
        send(job);
        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());
        DeliveryRecord after = deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow();
        assertEquals(DeliveryStatus.DELIVERED, after.status());
        assertEquals(delivered.deliveredAt(), after.deliveredAt());
        assertEquals(0, EventQueueMapping.depth());
    }

    @Test
    void aPutBackTheQueueDoesNotTakeFailsTheMessage() {
        merchant.setFaults(ORDERS, MerchantFaults.NONE.withFailRate(1));
        EventDeliveryJob job = job(ORDERS, "payment.succeeded", "succeeded");
        send(job);
        TestEnvironment.queueProxy().failNext("SendMessage", StoreFault.SERVER_ERROR, 3);

        Delivery delivered = EventQueueMapping.poll(10, 1);

        assertEquals(1, delivered.failedIds().size(), "the retry was not queued: the message itself must stay");
        assertEquals(DeliveryStatus.RETRYING, deliveries.find(TENANT, ORDERS, job.eventId()).orElseThrow().status());
        assertEquals(1, EventQueueMapping.depth(), "only the failed message, in flight");
    }

    @Test
    void aJobOfAnEndpointNoLongerConfiguredIsDropped() {
        EventDeliveryJob job = job("removed", "payment.succeeded", "succeeded");
        send(job);

        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());

        assertEquals(0, merchant.counts().received());
        assertEquals(0, EventQueueMapping.depth());
        assertTrue(deliveries.find(TENANT, "removed", job.eventId()).isEmpty());
    }

    @Test
    void aJobNotYetDueIsPutBackWithoutAnAttempt() throws Exception {
        EventDeliveryJob job = job(ORDERS, "payment.succeeded", "succeeded")
                .waiting(System.currentTimeMillis() + Duration.ofMinutes(20).toMillis());
        send(job);

        assertEquals(Set.of(), EventQueueMapping.poll(10, 1).failedIds());

        assertEquals(0, merchant.counts().received());
        assertTrue(deliveries.find(TENANT, ORDERS, job.eventId()).isEmpty());
        assertEquals(1, EventQueueMapping.depth(), "waiting on the queue (at most 15 min, then again)");
        assertEquals(0, EventQueueMapping.receive(10, 1).size());
    }

    private EventDeliveryJob job(String endpoint, String type, String status) {
        String paymentId = "pay_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        long at = System.currentTimeMillis();
        String eventId = "evt_" + paymentId + "_1";
        String body = "{\"id\":\"" + eventId + "\",\"type\":\"" + type + "\",\"createdAt\":\"" + Instant.ofEpochMilli(at)
                + "\",\"sequence\":1,\"tenant\":\"" + TENANT + "\",\"data\":{\"object\":\"payment\",\"id\":\"" + paymentId
                + "\",\"status\":\"" + status + "\",\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_1\"}}";
        return EventDeliveryJob.first(TENANT, endpoint, eventId, type, paymentId, paymentId, 1, at, body);
    }

    private void send(EventDeliveryJob job) {
        try {
            EventQueueMapping.send(JSON.writeValueAsString(job));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
