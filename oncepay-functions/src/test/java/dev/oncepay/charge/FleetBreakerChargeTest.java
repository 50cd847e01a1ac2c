package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.sim.Faults;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The charge function under the fleet's breaker and retry budget, moved by another sandbox: what
 * one sandbox learns about a provider account stops every other one.
 */
@QuarkusTest
@TestProfile(BulkheadProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class FleetBreakerChargeTest extends ChargeTestSupport {
    private static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");

    @Inject
    RecordingMetrics metrics;
    @ConfigProperty(name = "oncepay.provider.breaker-cache")
    Duration breakerCache;
    @ConfigProperty(name = "oncepay.provider.in-flight-after")
    Duration inFlightAfter;
    @ConfigProperty(name = "oncepay.charge.at-capacity-retry-after")
    Duration atCapacityRetryAfter;

    @Test
    void aBreakerOpenedByAnotherSandboxFailsChargesFastHereOnceThisSandboxReadsItAgain() {
        assertEquals(201, post(newKey(), body(100, "EUR", "order_before")).status()); // this sandbox read it closed
        breakers.openFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        clock.advance(breakerCache); // this sandbox's read is due again
        int calls = sim.chargeRequests();
        List<Map<String, AttributeValue>> before = storedItems();

        ApiResponse refused = post(newKey(), body(100, "EUR", "order_refused"));

        assertEquals(503, refused.status(), refused::body);
        assertEquals("https://oncepay.dev/problems/provider-unavailable", refused.json().get("type").asText());
        assertEquals(calls, sim.chargeRequests(), "no request reached the provider");
        assertEquals(before, storedItems(), "nothing stored: the key is free for a retry");
    }

    @Test
    void aTakeoverOfAPaymentThatMayBeChargedMeetingAnOpenBreakerAnswersTheStoredPaymentNot503() {
        String key = newKey();
        String body = body(4300, "EUR", "order_takeover_breaker");
        String paymentId = chargedButNotRecorded(key, body);
        breakers.openFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        breakers.readAgainHere();

        ApiResponse retried = post(key, body);

        assertStoredPaymentAnswered(retried, key, paymentId);
    }

    @Test
    void aTakeoverOfAPaymentThatMayBeChargedMeetingAFullBulkheadAnswersTheStoredPaymentNot503() throws Exception {
        String key = newKey();
        String body = body(4300, "EUR", "order_takeover_bulkhead");
        String paymentId = chargedButNotRecorded(key, body);
        Runnable endSlowCalls = breakers.fillFromOtherSandboxes(ACCOUNT, ProviderOperation.CHARGE);
        try {
            breakers.readAgainHere();

            ApiResponse retried = post(key, body);

            assertStoredPaymentAnswered(retried, key, paymentId);
        } finally {
            endSlowCalls.run();
        }
    }

    /**
     * A charge the provider executed whose settle the store lost: answered {@code 202}, the payment
     * PENDING, the key's lease over by the time the client retries.
     */
    private String chargedButNotRecorded(String key, String body) {
        TestEnvironment.storeProxy().failNext("UpdateItem", "payment#", StoreFault.SERVER_ERROR, 3);
        try {
            ApiResponse first = post(key, body);
            assertEquals(202, first.status(), first::body);
            String paymentId = first.json().path("id").asText();
            assertEquals(1, ledgerChargesFor(paymentId), "the provider charged it");
            clock.advance(lease.plusSeconds(1));
            return paymentId;
        } finally {
            TestEnvironment.storeProxy().reset();
        }
    }

    /** Never "nothing was charged": the payment as stored, the key still bound to it, one charge. */
    private void assertStoredPaymentAnswered(ApiResponse retried, String key, String paymentId) {
        assertEquals(202, retried.status(), retried::body);
        assertEquals(paymentId, retried.json().path("id").asText());
        assertEquals("pending", retried.json().path("status").asText());
        assertEquals("/payments/" + paymentId, retried.header("Location"));
        assertTrue(retried.header("Retry-After") != null, retried::toString);
        assertEquals(paymentId, StoredItems.keyItem(tenant, key).orElseThrow().get(Table.RESOURCE_ID).s(),
                "the key stays bound to its payment");
        assertEquals(1, ledgerChargesFor(paymentId), "exactly one charge at the provider");
        assertEquals(1, sim.chargeRequests(), "the retry sent nothing");
    }

    @Test
    void whenTheBreakersOwnItemCannotBeReadTheChargeStillReachesTheProvider() {
        metrics.reset();
        try {
            TestEnvironment.storeProxy().failNext("GetItem", "breaker#", StoreFault.SERVER_ERROR, 3);

            ApiResponse created = post(newKey(), body(100, "EUR", "order_breaker_store_down"));

            assertEquals(201, created.status(), created::body);
            assertEquals(1, sim.chargeRequests());
            assertTrue(metrics.counted(Metrics.BREAKER_STORE_FAILED) >= 1, "the breaker failed open, and said so");
        } finally {
            TestEnvironment.storeProxy().reset();
        }
    }

    @Test
    void withTheFleetsRetryBudgetSpentAServerErrorIsNotRetriedAndStaysUnknown() {
        breakers.spendRetryBudgetFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        metrics.reset();
        sim.scriptChargeAnswers(500);

        ApiResponse answer = post(newKey(), body(100, "EUR", "order_no_retry"));

        assertEquals(202, answer.status(), "a 5xx may have executed: UNKNOWN, for reconcile to ask");
        assertEquals(1, sim.chargeRequests(), "not retried");
        assertEquals(1, metrics.counted(Metrics.RETRY_BUDGET_SPENT));
    }

    @Test
    void withTheFleetsRetryBudgetSpentARateLimitIsNotRetriedAndNothingWasSent() {
        breakers.spendRetryBudgetFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        sim.scriptChargeAnswers(429);
        List<Map<String, AttributeValue>> before = storedItems();

        ApiResponse answer = post(newKey(), body(100, "EUR", "order_429_no_retry"));

        assertEquals(503, answer.status(), "a 429 provably did not execute: NOT_SENT");
        assertTrue(answer.json().get("detail").asText().contains("retry budget"), answer::body);
        assertEquals(1, sim.chargeRequests(), "not retried");
        assertEquals(before, storedItems());
    }

    @Test
    void withTheAccountsCapOfCallsInFlightElsewhereAChargeIsRefusedFastAndOtherAccountsStillCharge()
            throws Exception {
        String paidKey = newKey();
        String paid = body(100, "EUR", "order_paid_before");
        assertEquals(201, post(paidKey, paid).status());
        Runnable endSlowCalls = breakers.fillFromOtherSandboxes(ACCOUNT, ProviderOperation.CHARGE);
        breakers.readAgainHere(); // (not by the clock: the test profile's breaker-cache outlasts a slot's lease)
        sim.reset();
        metrics.reset();
        List<Map<String, AttributeValue>> before = storedItems();

        ApiResponse replay = post(paidKey, paid);
        assertEquals(201, replay.status(), "a replay needs no provider: answered at capacity too");
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(0, metrics.counted(Metrics.PROVIDER_AT_CAPACITY), "nothing was refused");

        ApiResponse refused = post(newKey(), body(100, "EUR", "order_at_capacity"));

        assertEquals(503, refused.status(), refused::body);
        assertEquals("https://oncepay.dev/problems/provider-at-capacity", refused.json().get("type").asText());
        assertTrue(refused.json().get("detail").asText().contains("retry with the same Idempotency-Key"), refused::body);
        assertEquals(String.valueOf(atCapacityRetryAfter.toSeconds()), refused.header("Retry-After"));
        assertEquals(0, sim.chargeRequests(), "no request reached the provider");
        assertEquals(before, storedItems(), "nothing stored: the key is free for a retry");
        assertEquals(1, metrics.counted(Metrics.PROVIDER_AT_CAPACITY));

        String simTenant = tenant;
        tenant = StripeChargeTest.TENANT; // another provider account keeps its own capacity
        ApiResponse elsewhere = post(newKey(), StripeChargeTest.stripeBody(100, "order_" + newKey().substring(0, 8),
                "pm_card_visa"));
        assertEquals(201, elsewhere.status(), elsewhere::body);

        endSlowCalls.run();
        clock.advance(breakerCache);
        tenant = simTenant;
        assertEquals(201, post(newKey(), body(100, "EUR", "order_after_capacity")).status());
    }

    @Test
    void aCallStillInFlightAfterInFlightAfterIsCountedForTheWholeFleetUntilItEnds() throws Exception {
        sim.setFaults(Faults.none().withLatencyMs(inFlightAfter.toMillis() * 2));
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<ApiResponse> slow = client.submit(() -> post(newKey(), body(100, "EUR", "order_slow")));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (breakers.slotsHeld(ACCOUNT, ProviderOperation.CHARGE) == 0 && !slow.isDone()) {
                assertTrue(System.nanoTime() < until, "the slow call never took a slot");
                Thread.sleep(10);
            }
            assertEquals(1, breakers.slotsHeld(ACCOUNT, ProviderOperation.CHARGE), "counted while in flight");

            assertEquals(201, slow.get(30, TimeUnit.SECONDS).status());
            assertEquals(0, breakers.slotsHeld(ACCOUNT, ProviderOperation.CHARGE), "given back when it ended");
            // A quick first charge: 2 GetItem (the breaker's shard, the bulkhead's slot shard), 2 PutItem
            // (claim, record), 2 UpdateItem (bind the order, settle). The account's first slow call ever
            // adds four (its slot, taken within the cap, finds no map: it reads the shard, creates the
            // map with its slot, and gives the slot back), every later one two: take the slot, give it back.
            assertEquals(Map.of("GetItem", 3L, "PutItem", 2L, "UpdateItem", 5L), dynamoRequests.snapshot());
            dynamoRequests.reset();
            assertEquals(201, post(newKey(), body(100, "EUR", "order_slow_again")).status());
            assertEquals(Map.of("PutItem", 2L, "UpdateItem", 4L), dynamoRequests.snapshot());
        } finally {
            client.shutdownNow();
        }
    }

    @Test
    void aChargeTheProviderLeftUnansweredUntilTheReadTimeoutKeepsItsSlotForTheFleet() throws Exception {
        sim.holdCharges(); // the provider takes the charge and says nothing
        try {
            ApiResponse unknown = post(newKey(), body(100, "EUR", "order_hung"));

            assertEquals(202, unknown.status(), unknown::body);
            assertEquals(1, breakers.slotsHeld(ACCOUNT, ProviderOperation.CHARGE),
                    "still held after the call ended here: the provider may still be working on it");
        } finally {
            releaseHeldCharges(1);
        }
    }
}
