package dev.oncepay.charge;

import static dev.oncepay.testing.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.sim.Faults;
import dev.oncepay.contract.Table;
import dev.oncepay.testkit.HeldAnswer;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.config.OncepayConfig;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Writes that commit but whose answer is lost: the SDK retries them, the retry's condition fails,
 * and each step must recognise its own earlier write — no 409 to ourselves, no second provider
 * call, the first answer never marked as a replay. And ownership of a key: a retried release
 * never deletes someone else's claim; a fresh claim never takes a key a takeover still holds.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class LostAnswerTest extends ChargeTestSupport {
    static final String BODY = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_lost\"}";

    @Inject
    OncepayConfig config;

    String key;

    @BeforeEach
    void aKeyOfItsOwn() {
        key = newKey();
    }

    @Test
    void lostAnswerOfTheClaimIsRecognisedAsOurs() {
        store.failNext("PutItem", "key#", StoreFault.LOST_ANSWER, 1);
        assertFirstAnswerIsOursAndReplays();
    }

    @Test
    void lostAnswerOfThePaymentRecordIsRecognisedAsOurs() {
        store.failNext("PutItem", "payment#", StoreFault.LOST_ANSWER, 1);
        assertFirstAnswerIsOursAndReplays();
    }

    @Test
    void lostAnswerOfTheSettlementIsRecognisedAsOurs() {
        store.failNext("UpdateItem", "payment#", StoreFault.LOST_ANSWER, 1);
        assertFirstAnswerIsOursAndReplays();
    }

    private void assertFirstAnswerIsOursAndReplays() {
        ApiResponse first = post(key, BODY);

        assertEquals(201, first.status(), first::toString);
        assertNull(first.header("Idempotent-Replayed"), "our own write is not a replay");
        assertEquals(1, store.injected(StoreFault.LOST_ANSWER), "the fault was injected");
        assertEquals(1, sim.chargeRequests(), "one provider call");
        assertEquals(1, sim.ledger().size());

        ApiResponse replay = post(key, BODY);
        assertEquals(201, replay.status());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.body(), replay.body());
        assertEquals(1, sim.chargeRequests());
    }

    @Test
    void lostAnswerOfTheUnsentPaymentsDeleteStillFreesTheKey() {
        // Nothing is sent (429 beyond the deadline); the delete of the unsent payment commits,
        // its answer is lost, and the SDK's retry finds nothing to delete: that was us.
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(30));
        store.failNext("DeleteItem", "payment#", StoreFault.LOST_ANSWER, 1);

        assertProblem(post(key, BODY), 503, "provider-unavailable");

        assertEquals(1, store.injected(StoreFault.LOST_ANSWER));
        assertTrue(storedItems().isEmpty(), "payment deleted and key released");
        sim.setFaults(Faults.none());
        ApiResponse retried = post(key, BODY);
        assertEquals(201, retried.status(), "the key is free at once, not in flight: " + retried);
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void aRetriedReleaseNeverDeletesTheNextRequestsClaim() throws Exception {
        // Nothing is sent (429 beyond the deadline): the run deletes its payment and releases the key.
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(30));
        HeldAnswer release = store.holdNextLostAnswer("DeleteItem", "key#");
        CompletableFuture<ApiResponse> refused = CompletableFuture.supplyAsync(
                () -> direct.call(HttpApiEvents.postPayment(tenant, key, BODY)));
        assertTrue(release.awaitCommitted(Duration.ofSeconds(30)), "the release committed; its answer is held");

        // The same key again, now that it is free: a fresh claim, at epoch 1 like the released one.
        sim.setFaults(Faults.none());
        hooks.parkOnceAfter(ChargePhase.KEY_CLAIMED);
        CompletableFuture<ApiResponse> next = CompletableFuture.supplyAsync(
                () -> direct.call(HttpApiEvents.postPayment(tenant, key, BODY)));
        assertTrue(hooks.awaitParked(), "the next request claimed the key");
        release.letGo(); // the first run's SDK retries its committed delete now

        assertProblem(refused.get(30, TimeUnit.SECONDS), 503, "provider-unavailable");
        hooks.release();
        ApiResponse created = next.get(30, TimeUnit.SECONDS);
        assertEquals(201, created.status(), created::toString);
        String paymentId = created.json().path("id").asText();

        Map<String, AttributeValue> keyItem = StoredItems.keyItem(tenant, key).orElseThrow(
                () -> new AssertionError("the retried release deleted the next request's claim"));
        assertEquals(paymentId, keyItem.get(Table.PAYMENT_ID).s());
        ApiResponse replay = post(key, BODY);
        assertEquals(201, replay.status());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(paymentId, replay.json().path("id").asText());
        assertEquals(1, sim.ledger().size(), "one charge for one key");
    }

    @Test
    void aKeyPastItsRetentionIsNotTakenWhileATakeoverStillHoldsIt() throws Exception {
        hooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        assertEquals(-1, post(key, BODY).status(), "the first run died");

        // Its retry takes over just before the key's retention ends, and is still working after.
        clock.advance(config.idempotency().retention().minusSeconds(10));
        hooks.parkOnceAfter(ChargePhase.KEY_CLAIMED);
        CompletableFuture<ApiResponse> takeover = CompletableFuture.supplyAsync(
                () -> direct.call(HttpApiEvents.postPayment(tenant, key, BODY)));
        assertTrue(hooks.awaitParked(), "the retry took the key over");
        clock.advance(Duration.ofSeconds(20));
        assertTrue(lease.compareTo(Duration.ofSeconds(10)) > 0, "the takeover's lease outlasts the retention");

        ApiResponse meanwhile = direct.call(HttpApiEvents.postPayment(tenant, key, BODY));

        assertProblem(meanwhile, 409, "request-in-flight");
        hooks.release();
        ApiResponse completed = takeover.get(30, TimeUnit.SECONDS);
        assertEquals(201, completed.status(), completed::toString);
        assertEquals(1, sim.ledger().size(), "one charge, by the takeover");
    }
}
