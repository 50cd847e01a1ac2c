package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.testing.DirectSweep;
import dev.oncepay.testing.EventSourceMapping;
import dev.oncepay.testing.EventSourceMapping.Delivery;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testkit.StoreFault;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Queued charges through the real entry points: {@code POST /payments} with {@code Prefer:
 * respond-async} into the charge function, its message on the account's queue in ElasticMQ, and the
 * SQS event Lambda would send into the charge worker (the application under test), counted at the
 * simulator.
 */
@QuarkusTest
@TestProfile(ChargeWorkerProfile.class)
class QueuedChargeTest extends ChargeTestSupport {
    static final ProviderAccount DEFAULT = new ProviderAccount("sim", DeploymentSettings.DEFAULT_ACCOUNT);
    static final String DEFAULT_QUEUE = DeploymentSettings.DEFAULT_ACCOUNT;

    @Inject
    DirectSweep sweep;

    @BeforeEach
    void emptyQueues() {
        EventSourceMapping.purgeAll();
        TestEnvironment.queueProxy().reset();
    }

    ApiResponse postQueued(String key, String body) {
        return direct.call(HttpApiEvents.postPayment(tenant, key, body).header("Prefer", "respond-async"));
    }

    ApiResponse show(String paymentId) {
        return direct.call(HttpApiEvents.getPayment(tenant, paymentId));
    }

    @Test
    void aQueuedChargeIsAnswered202AtOnceAndChargedOnceByTheWorker() {
        String key = newKey();
        String body = body(4200, "EUR", "order-q1");
        dynamoRequests.reset();
        ApiResponse queued = postQueued(key, body);

        assertEquals(202, queued.status(), queued.body());
        assertEquals("respond-async", queued.header("Preference-Applied"));
        String id = queued.json().get("id").asText();
        assertEquals("/payments/" + id, queued.header("Location"));
        assertEquals("pending", queued.json().get("status").asText());
        // Claim, record, bind the order: three writes and no read; one message; no provider call.
        assertEquals(Map.of("PutItem", 2L, "UpdateItem", 1L), dynamoRequests.snapshot(), "requests of a queued charge");
        assertEquals(0, sim.ledger().size());
        assertEquals(1, EventSourceMapping.depth(DEFAULT_QUEUE));
        assertEquals("pending", show(id).json().get("status").asText());

        dynamoRequests.reset();
        Delivery delivered = EventSourceMapping.poll(DEFAULT_QUEUE, 1, 1);
        assertEquals(1, delivered.messages().size());
        assertEquals(Set.of(), delivered.failedIds(), delivered.answer().toString());
        // Read the payment, the account's breaker shard and bulkhead slot shard (once per breaker-cache
        // period and once per ten: this test's first) and the key; take the key over, fence and re-read
        // the payment, bind the order again (a queued payment is bound by its request unless that died
        // first), settle.
        assertEquals(Map.of("GetItem", 5L, "UpdateItem", 4L), dynamoRequests.snapshot(), "requests of the worker's run");
        assertEquals("succeeded", show(id).json().get("status").asText());
        assertEquals(1, ledgerChargesFor(id));
        assertEquals(0, EventSourceMapping.depth(DEFAULT_QUEUE));

        ApiResponse replay = postQueued(key, body);
        assertEquals(201, replay.status(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertNull(replay.header("Preference-Applied"), "a settled payment's replay is no queued answer");
    }

    @Test
    void aTenantThatQueuesByDefaultNeedsNoPreferHeader() {
        tenant = ChargeWorkerProfile.QUEUED_TENANT;
        ApiResponse queued = direct.call(HttpApiEvents.postPayment(tenant, newKey(), body(990, "EUR", "order-" + newKey())));

        assertEquals(202, queued.status(), queued.body());
        assertEquals("respond-async", queued.header("Preference-Applied"));
        assertEquals(1, EventSourceMapping.depth(DEFAULT_QUEUE));
        assertEquals(Set.of(), EventSourceMapping.poll(DEFAULT_QUEUE, 1, 1).failedIds());
        assertEquals(1, ledgerChargesFor(queued.json().get("id").asText()));
    }

    @Test
    void onlyTheRespondAsyncPreferenceQueuesInAnySpellingRfc7240Allows() {
        for (String prefer : new String[] {"RESPOND-ASYNC", "wait=10, respond-async", "respond-async; x=1"}) {
            ApiResponse queued = direct.call(HttpApiEvents.postPayment(tenant, newKey(), body(100, "EUR", "order-" + newKey()))
                    .header("Prefer", prefer));
            assertEquals(202, queued.status(), prefer + ": " + queued.body());
            assertEquals("respond-async", queued.header("Preference-Applied"), prefer);
        }
        for (String prefer : new String[] {"return=minimal", "respond-asynchronously", "handling=lenient"}) {
            ApiResponse charged = direct.call(HttpApiEvents.postPayment(tenant, newKey(), body(100, "EUR", "order-" + newKey()))
                    .header("Prefer", prefer));
            assertEquals(201, charged.status(), prefer + ": " + charged.body());
            assertNull(charged.header("Preference-Applied"), prefer);
        }
        assertEquals(3, EventSourceMapping.depth(DEFAULT_QUEUE));
        assertEquals(3, sim.ledger().size(), "the three others were charged in their requests");
    }

    @Test
    void aStoreFailureBeforeTheMessageIsA503WithNothingQueuedOrKept() {
        store.failNext("PutItem", "payment#", StoreFault.SERVER_ERROR, 3);
        String key = newKey();
        String body = body(800, "EUR", "order-q6");

        ApiResponse refused = postQueued(key, body);

        assertEquals(503, refused.status(), refused.body());
        assertEquals("https://oncepay.dev/problems/store-unavailable", refused.json().get("type").asText());
        assertEquals(0, EventSourceMapping.depth(DEFAULT_QUEUE));
        assertEquals(java.util.List.of(), storedItems());
        assertEquals(202, postQueued(key, body).status(), "the key is free at once");
    }

    @Test
    void aStoreFailureInTheWorkerFailsThatMessageAloneForItsQueueToHandOutAgain() {
        String id = postQueued(newKey(), body(900, "EUR", "order-q7")).json().get("id").asText();
        store.failNext("GetItem", id, StoreFault.SERVER_ERROR, 3);

        Delivery failed = EventSourceMapping.poll(DEFAULT_QUEUE, 1, 1);

        assertEquals(1, failed.failed().size(), failed.answer().toString());
        assertEquals(0, sim.ledger().size());
        EventSourceMapping.expireVisibility(DEFAULT_QUEUE, failed.messages());
        assertEquals(Set.of(), EventSourceMapping.poll(DEFAULT_QUEUE, 1, 1).failedIds());
        assertEquals("succeeded", show(id).json().get("status").asText());
        assertEquals(1, ledgerChargesFor(id));
    }

    @Test
    void aSameKeyRetryOfAQueuedPaymentIsAnsweredQueuedWithoutASecondMessage() {
        String key = newKey();
        String body = body(1200, "EUR", "order-q2");
        String id = postQueued(key, body).json().get("id").asText();

        ApiResponse again = postQueued(key, body);
        ApiResponse withoutPreference = direct.call(HttpApiEvents.postPayment(tenant, key, body));

        for (ApiResponse answer : new ApiResponse[] {again, withoutPreference}) {
            assertEquals(202, answer.status(), answer.body());
            assertEquals(id, answer.json().get("id").asText());
            assertEquals("true", answer.header("Idempotent-Replayed"));
            assertEquals("respond-async", answer.header("Preference-Applied"));
        }
        assertEquals(1, EventSourceMapping.depth(DEFAULT_QUEUE), "the run that queued it is alive: no second message");
        assertEquals(0, sim.ledger().size());
    }

    @Test
    void anOpenBreakerDelaysTheMessageInsteadOfFailingIt() {
        breakers.openFromAnotherSandbox(DEFAULT, ProviderOperation.CHARGE);
        ApiResponse queued = postQueued(newKey(), body(700, "EUR", "order-q3"));
        assertEquals(202, queued.status(), "a queued charge is not refused for its provider: " + queued.body());
        String id = queued.json().get("id").asText();

        Delivery refused = EventSourceMapping.poll(DEFAULT_QUEUE, 1, 1);
        assertEquals(Set.of(), refused.failedIds(), "put back, not failed: waiting out an outage never dead-letters");
        assertEquals(0, sim.ledger().size());
        assertEquals("pending", show(id).json().get("status").asText());
        assertEquals(1, EventSourceMapping.depth(DEFAULT_QUEUE), "a delayed copy is on the queue");

        breakers.resetAll();
        Delivery later = EventSourceMapping.poll(DEFAULT_QUEUE, 1, 5);
        assertEquals(1, later.messages().size(), "the delayed copy comes back within its delay");
        assertEquals("succeeded", show(id).json().get("status").asText());
        assertEquals(1, ledgerChargesFor(id));
    }

    @Test
    void aSlowAccountsQueueDoesNotHoldBackAnotherAccounts() {
        breakers.openFromAnotherSandbox(DEFAULT, ProviderOperation.CHARGE);
        String held = postQueued(newKey(), body(500, "EUR", "order-q4")).json().get("id").asText();
        tenant = "merchant-stripe";
        ApiResponse stripe = direct.call(HttpApiEvents.postPayment(tenant, newKey(),
                "{\"amount\":500,\"currency\":\"EUR\",\"reference\":\"order-" + newKey() + "\",\"paymentMethod\":\"pm_card_visa\"}")
                .header("Prefer", "respond-async"));
        assertEquals(202, stripe.status(), stripe.body());

        assertEquals(1, EventSourceMapping.depth(DEFAULT_QUEUE));
        assertEquals(Set.of(), EventSourceMapping.poll("stripe-test", 1, 1).failedIds());
        assertEquals("succeeded", show(stripe.json().get("id").asText()).json().get("status").asText());
        assertEquals(0, ledgerChargesFor(held), "the default account's charge waits in its own queue");
    }

    @Test
    void aMessagePastItsHorizonIsLeftToTheSweepWhichSettlesItFromTheProvidersWord() {
        String id = postQueued(newKey(), body(300, "EUR", "order-q5")).json().get("id").asText();
        assertEquals(0, sweep.sweepOnly(Set.of(id)).examined(), "the sweep leaves a queued payment to its queue");

        clock.advance(Duration.ofHours(1).plusSeconds(1));
        Delivery late = EventSourceMapping.poll(DEFAULT_QUEUE, 1, 1);
        assertEquals(Set.of(), late.failedIds());
        assertEquals(0, sim.ledger().size(), "past its horizon the worker charges nothing");
        assertEquals(0, EventSourceMapping.depth(DEFAULT_QUEUE));

        clock.advance(Duration.ofMinutes(10)); // the lease after the horizon, and the lookup lag
        sweep.sweepOnly(Set.of(id));
        ApiResponse settled = show(id);
        assertEquals("failed", settled.json().get("status").asText(), settled.body());
        assertEquals("not_charged", storedPayment(id).get(Table.DECLINE_CODE).s());
    }

    @Test
    void aQueuedPaymentWhoseOrderAnotherKeyPaidIsProvenUnchargedOneLookupLagAfterItsWorkerNotAfterItsHorizon() {
        // The request binds nothing and cannot forget its payment: bind and unbind both fail.
        store.failNext("UpdateItem", "order#", StoreFault.SERVER_ERROR, 6);
        String key = newKey();
        String body = body(650, "EUR", "order-q8");
        assertEquals(503, postQueued(key, body).status());
        List<String> kept = paymentIds();
        assertEquals(1, kept.size(), "the payment stays, with no message: " + kept);
        String queued = kept.get(0);
        assertEquals(0, EventSourceMapping.depth(DEFAULT_QUEUE));
        // The shopper pays the order again under a fresh key, in its request.
        ApiResponse paid = direct.call(HttpApiEvents.postPayment(tenant, newKey(), body));
        assertEquals(201, paid.status(), paid.body());
        // The first key's retry after its lease sends the message the failed request never sent.
        clock.advance(lease.plusSeconds(1));
        assertEquals(202, postQueued(key, body).status());

        Delivery refused = EventSourceMapping.poll(DEFAULT_QUEUE, 1, 1);

        assertEquals(Set.of(), refused.failedIds(), refused.answer().toString());
        assertEquals(0, EventSourceMapping.depth(DEFAULT_QUEUE), "not put back: its order refuses it for good");
        assertEquals(0, ledgerChargesFor(queued));
        assertEquals(0, sweep.sweepOnly(Set.of(queued)).examined(), "a charge that arrived may not show for a lag");
        clock.advance(Duration.ofMinutes(5).plusSeconds(1)); // the lookup lag, far inside its queue's hour
        sweep.sweepOnly(Set.of(queued));
        ApiResponse settled = show(queued);
        assertEquals("failed", settled.json().get("status").asText(), settled.body());
        assertEquals("not_charged", storedPayment(queued).get(Table.DECLINE_CODE).s());
        assertEquals(1, sim.ledger().size(), "the order is charged once, under the fresh key");
    }
}
