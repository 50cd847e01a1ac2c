package dev.oncepay.charge;

import static dev.oncepay.testing.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaults;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The store stalls, throttles and fails: through the charge function, with dynalite
 * behind the fault proxy. Before the provider call a store failure is a {@code 503}
 * store-unavailable and nothing was charged; after it, the answer is what is known: {@code 202}.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StoreFailureTest extends ChargeTestSupport {
    /**
     * Far inside the charge Lambda's 28 s: the SDK's total budget per call is 3 s.
     */
    private static final Duration STORE_FAILURE_ANSWERED_WITHIN = Duration.ofSeconds(5);

    @Test
    void storeDownBeforeTheProviderCallIs503StoreUnavailableFastAndChargesNothing() {
        store.set(StoreFaults.none().withOutage(true));
        String key = newKey();

        Instant start = Instant.now();
        ApiResponse refused = post(key, body(4200, "EUR", "order_store_down"));
        Duration took = Duration.between(start, Instant.now());
        System.out.println("store down: POST answered " + refused.status() + " after " + took.toMillis() + " ms");

        assertProblem(refused, 503, "store-unavailable");
        assertNotNull(refused.header("Retry-After"));
        assertTrue(took.compareTo(STORE_FAILURE_ANSWERED_WITHIN) < 0, "answered after " + took);
        assertTrue(store.outageDrops() > 0, "the store really was unreachable");
        assertEquals(0, sim.chargeRequests(), "no provider call without a recorded payment");
        assertTrue(storedItems().isEmpty());

        store.reset();
        ApiResponse later = post(key, body(4200, "EUR", "order_store_down"));
        assertEquals(201, later.status(), later::toString);
        assertNull(later.header("Idempotent-Replayed"));
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void throttlingBeforeTheProviderCallIs503AndChargesNothing() {
        store.set(StoreFaults.none().withThrottleRate(1.0));

        ApiResponse refused = post(newKey(), body(4200, "EUR", "order_throttled_store"));

        assertProblem(refused, 503, "store-unavailable");
        assertNotNull(refused.header("Retry-After"));
        assertTrue(store.injected(StoreFault.THROTTLE) > 0);
        assertEquals(0, sim.chargeRequests());
        assertTrue(storedItems().isEmpty());
    }

    @Test
    void failingRecordOfThePaymentIs503AndNoProviderCall() {
        // The claim succeeds; every attempt to record the PENDING payment fails.
        store.failNext("PutItem", "payment#", StoreFault.SERVER_ERROR, 3);

        String key = newKey();
        ApiResponse refused = post(key, body(4200, "EUR", "order_no_record"));

        assertProblem(refused, 503, "store-unavailable");
        assertEquals(0, sim.chargeRequests(), "the provider is called only after the payment is recorded");
        assertTrue(storedItems().stream().noneMatch(i -> Table.KIND_PAYMENT.equals(i.get(Table.KIND).s())));
        assertTrue(storedItems().isEmpty(), "the fresh claim was released: nothing was sent for it");

        ApiResponse retried = post(key, body(4200, "EUR", "order_no_record"));
        assertEquals(201, retried.status(), "the same key works at once, no 409 against our own lease");
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void aStalledStoreIs503WithinTheBudgetNotAfterIt() {
        store.set(StoreFaults.none().withStallRate(1.0).withStallMs(5_000));

        Instant start = Instant.now();
        ApiResponse refused = post(newKey(), body(4200, "EUR", "order_stalled"));
        Duration took = Duration.between(start, Instant.now());
        System.out.println("store stalled: POST answered " + refused.status() + " after " + took.toMillis() + " ms");

        assertProblem(refused, 503, "store-unavailable");
        assertTrue(took.compareTo(STORE_FAILURE_ANSWERED_WITHIN) < 0, "answered after " + took);
        assertEquals(0, sim.chargeRequests());
        // The stalled writes are still on their way to the store: that they land late and
        // harmlessly is the point of the lost-answer tests.
    }

    @Test
    void oneStallIsRetriedInsideTheBudget() {
        store.failNext("PutItem", StoreFault.STALL, 1);

        ApiResponse created = post(newKey(), body(4200, "EUR", "order_one_stall"));

        assertEquals(201, created.status(), created::toString);
        assertNull(created.header("Idempotent-Replayed"));
        assertEquals(1, store.injected(StoreFault.STALL));
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void storeFailureAfterTheProviderCallAnswers202AndLeavesThePaymentToTheSweep() {
        String key = newKey();
        // Every attempt of the settle write fails: the provider has charged, the store cannot say so.
        store.failNext("UpdateItem", "payment#", StoreFault.SERVER_ERROR, 3);

        ApiResponse answer = post(key, body(4200, "EUR", "order_settle_fails"));

        assertEquals(202, answer.status(), answer::toString);
        String paymentId = answer.json().path("id").asText();
        assertEquals("/payments/" + paymentId, answer.header("Location"));
        assertEquals("pending", answer.json().path("status").asText());
        assertNotNull(answer.header("Retry-After"));
        assertNull(answer.header("Idempotent-Replayed"));
        assertEquals(1, ledgerChargesFor(paymentId));
        Map<String, AttributeValue> stored = storedPayment(paymentId);
        assertEquals("PENDING", stored.get(Table.STATUS).s());
        assertTrue(stored.containsKey(Table.SWEEP_SHARD) && stored.containsKey(Table.NEXT_CHECK_AT),
                "still listed in the sweep index: " + stored);

        // The client's retry with its key, once the lease is over, completes it: same provider
        // key, so the provider's own idempotency answers; no second charge.
        store.reset();
        clock.advance(lease.plusSeconds(1));
        ApiResponse retried = post(key, body(4200, "EUR", "order_settle_fails"));
        assertEquals(201, retried.status(), retried::toString);
        assertEquals(paymentId, retried.json().path("id").asText());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void lookupUnderStoreFailureIs503() {
        ApiResponse created = post(newKey(), body(4200, "EUR", "order_lookup"));
        String paymentId = created.json().path("id").asText();
        store.set(StoreFaults.none().withOutage(true));

        assertProblem(get(paymentId), 503, "store-unavailable");

        store.reset();
        ApiResponse found = get(paymentId);
        assertEquals(200, found.status());
        assertEquals("succeeded", found.json().path("status").asText());
    }
}
