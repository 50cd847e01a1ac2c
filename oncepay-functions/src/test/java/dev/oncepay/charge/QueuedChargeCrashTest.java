package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.function.ChargeWorkerFunction;
import dev.oncepay.queue.ChargeJob;
import dev.oncepay.testing.EventSourceMapping;
import dev.oncepay.testing.EventSourceMapping.Delivery;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.PhaseHooks.SimulatedCrash;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HeldAnswer;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaultProxy;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * What can go wrong between a queued charge's request, its message and the worker: the queue
 * refusing or losing its answer, a crash on either side of the send, a message delivered twice or
 * at the same instant twice, a same-key retry racing the worker, and a message nobody can read.
 * Every case is counted at the simulator: one charge at most, and none where the answer said so.
 */
@QuarkusTest
@TestProfile(ChargeWorkerProfile.class)
class QueuedChargeCrashTest extends ChargeTestSupport {
    static final String QUEUE = DeploymentSettings.DEFAULT_ACCOUNT;

    @Inject
    ChargeWorkerFunction worker;
    @Inject
    ObjectMapper json;

    StoreFaultProxy queueProxy;

    @BeforeEach
    void emptyQueues() {
        EventSourceMapping.purgeAll();
        queueProxy = TestEnvironment.queueProxy();
        queueProxy.reset();
    }

    @AfterEach
    void healthyQueue() {
        queueProxy.reset();
    }

    ApiResponse postQueued(String key, String body) {
        return direct.call(HttpApiEvents.postPayment(tenant, key, body).header("Prefer", "respond-async"));
    }

    String statusOf(String paymentId) {
        return direct.call(HttpApiEvents.getPayment(tenant, paymentId)).json().get("status").asText();
    }

    @Test
    void aQueueThatRefusesTheMessageIsAnswered503WithNothingStoredOrCharged() {
        queueProxy.failNext("SendMessage", StoreFault.SERVER_ERROR, 3);
        String key = newKey();
        String body = body(2500, "EUR", "order-c1");

        ApiResponse refused = postQueued(key, body);

        assertEquals(503, refused.status(), refused.body());
        assertEquals("https://oncepay.dev/problems/queue-unavailable", refused.json().get("type").asText());
        assertTrue(refused.header("Retry-After") != null);
        assertEquals(List.of(), storedItems(), "no key, no payment, no order left behind");
        assertEquals(0, EventSourceMapping.depth(QUEUE));
        assertEquals(0, sim.ledger().size());

        ApiResponse retried = postQueued(key, body);
        assertEquals(202, retried.status(), "the key is free at once: " + retried.body());
        assertEquals(Set.of(), EventSourceMapping.poll(QUEUE, 1, 1).failedIds());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void aLostSendAnswerIsA503OnlyIfNoWorkerCanChargeThePaymentAnyMore() {
        // The message reaches the queue, its answer is lost, and the SDK's retries are refused.
        queueProxy.failNext("SendMessage", StoreFault.LOST_ANSWER, 1);
        queueProxy.failNext("SendMessage", StoreFault.SERVER_ERROR, 2);
        String key = newKey();

        ApiResponse refused = postQueued(key, body(2600, "EUR", "order-c2"));

        assertEquals(503, refused.status(), refused.body());
        assertEquals(1, EventSourceMapping.depth(QUEUE), "the message is on the queue all the same");
        Delivery orphan = EventSourceMapping.poll(QUEUE, 1, 1);
        assertEquals(Set.of(), orphan.failedIds());
        assertEquals(0, sim.ledger().size(), "the worker finds the payment forgotten and charges nothing");
        assertEquals(List.of(), storedItems());
    }

    @Test
    void aWorkerThatTookTheChargeBeforeTheLostAnswerCameBackTurnsThe503IntoTheOutcome() throws Exception {
        HeldAnswer held = queueProxy.holdNextLostAnswer("SendMessage", null);
        queueProxy.failNext("SendMessage", StoreFault.SERVER_ERROR, 2);
        ExecutorService request = Executors.newSingleThreadExecutor();
        try {
            Future<ApiResponse> answer = request.submit(() -> postQueued(newKey(), body(2700, "EUR", "order-c3")));
            assertTrue(held.awaitCommitted(Duration.ofSeconds(10)), "the message never reached the queue");

            Delivery taken = EventSourceMapping.poll(QUEUE, 1, 1);
            assertEquals(Set.of(), taken.failedIds());
            held.letGo();
            ApiResponse response = answer.get(30, TimeUnit.SECONDS);

            assertEquals(201, response.status(), "charged by the worker: no 503 may say otherwise: " + response.body());
            assertEquals(1, sim.ledger().size());
        } finally {
            held.letGo();
            request.shutdownNow();
        }
    }

    @Test
    void aCrashAfterTheSendIsAnsweredByTheSameKeyWithTheSamePayment() {
        String key = newKey();
        String body = body(2800, "EUR", "order-c4");
        hooks.crashOnceAfter(ChargePhase.QUEUED);
        assertThrows(SimulatedCrash.class, () -> postQueued(key, body));
        String id = paymentIds().get(0);

        ApiResponse retried = postQueued(key, body);

        assertEquals(202, retried.status(), retried.body());
        assertEquals(id, retried.json().get("id").asText());
        assertEquals(1, EventSourceMapping.depth(QUEUE), "the queued message is the one; the retry adds none");
        assertEquals(Set.of(), EventSourceMapping.poll(QUEUE, 1, 1).failedIds());
        assertEquals("succeeded", statusOf(id));
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void aCrashBeforeTheSendIsQueuedAgainByARetryOnceTheRunsLeaseEnded() {
        String key = newKey();
        String body = body(2900, "EUR", "order-c5");
        hooks.crashOnceAfter(ChargePhase.ORDER_BOUND);
        assertThrows(SimulatedCrash.class, () -> postQueued(key, body));
        String id = paymentIds().get(0);

        assertEquals(202, postQueued(key, body).status());
        assertEquals(0, EventSourceMapping.depth(QUEUE), "within the run's lease it may still be sending: no message");

        clock.advance(lease.plusSeconds(1));
        ApiResponse later = postQueued(key, body);
        assertEquals(202, later.status(), later.body());
        assertEquals(1, EventSourceMapping.depth(QUEUE), "the retry queued the charge the crash never sent");
        assertEquals(Set.of(), EventSourceMapping.poll(QUEUE, 1, 1).failedIds());
        assertEquals("succeeded", statusOf(id));
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void aMessageDeliveredTwiceChargesOnce() {
        String id = postQueued(newKey(), body(3000, "EUR", "order-c6")).json().get("id").asText();
        Message original = EventSourceMapping.receive(QUEUE, 1, 1).get(0);
        TestEnvironment.sqs().sendMessage(b -> b.queueUrl(TestEnvironment.queueUrl(QUEUE)).messageBody(original.body()));
        EventSourceMapping.expireVisibility(QUEUE, List.of(original));

        Delivery both = EventSourceMapping.poll(QUEUE, 2, 1);

        assertEquals(2, both.messages().size());
        assertEquals(Set.of(), both.failedIds());
        assertEquals("succeeded", statusOf(id));
        assertEquals(1, ledgerChargesFor(id));
        assertEquals(0, EventSourceMapping.depth(QUEUE), "the second copy found the payment settled");
    }

    @Test
    void twoCopiesOfAMessageAtTheSameInstantChargeOnce() throws Exception {
        String id = postQueued(newKey(), body(3100, "EUR", "order-c7")).json().get("id").asText();
        ChargeJob job = json.readValue(EventSourceMapping.receive(QUEUE, 1, 1).get(0).body(), ChargeJob.class);
        EventSourceMapping.purgeAll();

        int copies = 8;
        ExecutorService pool = Executors.newFixedThreadPool(copies);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> runs = new ArrayList<>();
            for (int i = 0; i < copies; i++) {
                runs.add(pool.submit(() -> {
                    go.await();
                    worker.chargeWorker(job);
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> run : runs) {
                run.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertEquals("succeeded", statusOf(id));
        assertEquals(1, ledgerChargesFor(id), "one charge however many copies ran at once");
        // The copies that met the winner's live lease put themselves back; each finds it settled.
        for (Delivery d = EventSourceMapping.poll(QUEUE, 10, 3); !d.empty(); d = EventSourceMapping.poll(QUEUE, 10, 3)) {
            assertEquals(Set.of(), d.failedIds());
        }
        assertEquals(1, ledgerChargesFor(id));
    }

    @Test
    void aSameKeyRetryRacingTheWorkerPastItsHorizonChargesOnce() throws Exception {
        String key = newKey();
        String body = body(3200, "EUR", "order-c8");
        String id = postQueued(key, body).json().get("id").asText();
        ChargeJob job = json.readValue(EventSourceMapping.receive(QUEUE, 1, 1).get(0).body(), ChargeJob.class);
        hooks.parkOnceAfter(ChargePhase.ORDER_BOUND);
        ExecutorService workerThread = Executors.newSingleThreadExecutor();
        try {
            Future<?> parked = workerThread.submit(() -> worker.chargeWorker(job));
            assertTrue(hooks.awaitParked(), "the worker's run never reached its provider call");

            // The worker stalls past the queue's horizon and its own lease: the client, tired of
            // waiting, retries without the preference, and its run takes the key over.
            clock.advance(Duration.ofHours(1).plus(lease));
            ApiResponse retried = direct.call(HttpApiEvents.postPayment(tenant, key, body));
            hooks.release();
            parked.get(30, TimeUnit.SECONDS);

            assertEquals(201, retried.status(), retried.body());
            assertEquals("succeeded", statusOf(id));
            assertEquals(1, ledgerChargesFor(id), "both runs sent the payment's provider key: one charge");
        } finally {
            hooks.release();
            workerThread.shutdownNow();
        }
    }

    @Test
    void aPoisonMessageGoesToTheDeadLetterQueueWithoutRerunningItsNeighbours() {
        String first = postQueued(newKey(), body(3300, "EUR", "order-c9")).json().get("id").asText();
        String second = postQueued(newKey(), body(3400, "EUR", "order-c10")).json().get("id").asText();
        TestEnvironment.sqs().sendMessage(b -> b.queueUrl(TestEnvironment.queueUrl(QUEUE)).messageBody("{not json"));

        Delivery batch = EventSourceMapping.poll(QUEUE, 3, 1);

        assertEquals(3, batch.messages().size());
        assertEquals(1, batch.failed().size(), batch.answer().toString());
        assertEquals("{not json", batch.failed().get(0).body());
        assertEquals("succeeded", statusOf(first));
        assertEquals("succeeded", statusOf(second));
        for (int receive = 2; receive <= DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES; receive++) {
            EventSourceMapping.expireVisibility(QUEUE, batch.failed());
            batch = EventSourceMapping.poll(QUEUE, 3, 1);
            assertEquals(1, batch.messages().size(), "only the poison message comes back (receive " + receive + ")");
            assertEquals(1, batch.failed().size());
        }
        EventSourceMapping.expireVisibility(QUEUE, batch.failed());
        assertTrue(EventSourceMapping.receive(QUEUE, 3, 1).isEmpty(), "past its last receive it leaves the queue");
        assertEquals(1, EventSourceMapping.depth(DeploymentSettings.chargeDeadLetterQueueName(QUEUE)));
        assertEquals(2, sim.ledger().size(), "its neighbours were charged once each");
    }
}
