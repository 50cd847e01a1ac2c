package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.sim.Faults;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every row of the {@code POST /payments} table in design §3, with its status, headers and body. */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ChargeContractTest extends ChargeTestSupport {

    @Test
    void capturedPaymentIs201AndItsReplayIsIdentical() {
        String key = newKey();
        ApiResponse first = post(key, body(4200, "EUR", "order_9182"));

        assertEquals(201, first.status());
        assertEquals("application/json", first.header("Content-Type"));
        assertNull(first.header("Idempotent-Replayed"));
        String id = first.json().get("id").asText();
        assertEquals("/payments/" + id, first.header("Location"));
        assertEquals("succeeded", first.json().get("status").asText());
        assertEquals(4200, first.json().get("amount").asLong());
        assertEquals("EUR", first.json().get("currency").asText());
        assertEquals("order_9182", first.json().get("reference").asText());
        assertTrue(first.json().get("providerPaymentId").asText().startsWith("ch_"));
        assertEquals(List.of("id", "status", "amount", "currency", "reference", "providerPaymentId", "createdAt",
                "updatedAt"), fieldNames(first));

        ApiResponse replay = post(key, body(4200, "EUR", "order_9182"));
        assertEquals(201, replay.status());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.body(), replay.body());
        assertEquals(first.header("Location"), replay.header("Location"));

        assertEquals(1, sim.ledger().size());
        assertEquals("oncepay-" + id, sim.ledger().get(0).idempotencyKey());
        assertEquals(id, sim.ledger().get(0).reference(), "the PSP's reference is our payment id");
        assertEquals(1, sim.chargeRequests(), "a replay never calls the provider");
    }

    @Test
    void aReformattedButEqualBodyReplays() {
        String key = newKey();
        ApiResponse first = post(key, body(1500, "USD", "order_1"));
        ApiResponse replay = post(key, "{ \"reference\" : \"order_1\",\n \"currency\":\"USD\", \"amount\": 1500 }");
        assertEquals(201, replay.status());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.body(), replay.body());
    }

    @Test
    void declinedPaymentIs402ProblemAndItsReplayIsIdentical() {
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        String key = newKey();
        ApiResponse first = post(key, body(4200, "EUR", "order_declined"));

        assertEquals(402, first.status());
        assertEquals("application/problem+json", first.header("Content-Type"));
        assertEquals("https://oncepay.dev/problems/payment-declined", first.json().get("type").asText());
        assertEquals(402, first.json().get("status").asInt());
        String id = first.json().get("paymentId").asText();
        assertEquals("card_declined", first.json().get("declineCode").asText());
        assertEquals("failed", first.json().at("/payment/status").asText());
        assertEquals("FAILED", storedPayment(id).get(Table.STATUS).s());

        ApiResponse replay = post(key, body(4200, "EUR", "order_declined"));
        assertEquals(402, replay.status());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.body(), replay.body());
        assertEquals(1, sim.chargeRequests());
    }

    @Test
    void unknownOutcomeIs202WithLocationAndTheReplayChargesNothing() {
        // The provider executes the charge, then answers later than our read timeout.
        sim.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(4000));
        String key = newKey();
        ApiResponse first = post(key, body(990, "GBP", "order_unknown"));

        assertEquals(202, first.status());
        String id = first.json().get("id").asText();
        assertEquals("pending", first.json().get("status").asText());
        assertEquals("/payments/" + id, first.header("Location"));
        assertNotNull(first.header("Retry-After"));
        assertEquals("UNKNOWN", storedPayment(id).get(Table.STATUS).s());
        assertNotNull(storedPayment(id).get(Table.NEXT_CHECK_AT), "an unknown payment is listed for the sweep");
        assertEquals(1, ledgerChargesFor(id), "the provider did charge");
        assertEquals(1, sim.chargeRequests(), "a timeout is never retried blindly");

        ApiResponse replay = post(key, body(990, "GBP", "order_unknown"));
        assertEquals(202, replay.status());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.body(), replay.body());
        assertEquals(1, sim.chargeRequests(), "the replay makes no provider call");
        assertEquals(1, ledgerChargesFor(id));
    }

    @Test
    void sameKeyWithADifferentPayloadIs422AndChangesNothing() {
        String key = newKey();
        ApiResponse first = post(key, body(4200, "EUR", "order_a"));
        List<?> before = storedItems();

        ApiResponse other = post(key, body(4300, "EUR", "order_a"));

        assertEquals(422, other.status());
        assertEquals("application/problem+json", other.header("Content-Type"));
        assertEquals("https://oncepay.dev/problems/idempotency-key-reused", other.json().get("type").asText());
        assertEquals(before, storedItems());
        assertEquals(1, sim.chargeRequests());
        // The original answer is still replayed for the original payload.
        assertEquals(first.body(), post(key, body(4200, "EUR", "order_a")).body());
    }

    @Test
    void sameKeyWhileTheFirstRequestRunsIs409WithRetryAfter() throws Exception {
        hooks.parkOnceAfter(ChargePhase.PAYMENT_RECORDED);
        String key = newKey();
        CompletableFuture<ApiResponse> first = CompletableFuture
                .supplyAsync(() -> direct.call(dev.oncepay.testkit.HttpApiEvents.postPayment(tenant, key,
                        body(4200, "EUR", "order_busy"))));
        assertTrue(hooks.awaitParked(), "the first request is about to call the provider");

        ApiResponse second = direct.call(dev.oncepay.testkit.HttpApiEvents.postPayment(tenant, key,
                body(4200, "EUR", "order_busy")));

        assertEquals(409, second.status());
        assertEquals("application/problem+json", second.header("Content-Type"));
        assertEquals("https://oncepay.dev/problems/request-in-flight", second.json().get("type").asText());
        assertEquals("1", second.header("Retry-After"));
        hooks.release();
        assertEquals(201, first.get(30, TimeUnit.SECONDS).status());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void breakerOpenIs503BeforeAnyWriteAndTheKeyStaysUsable() {
        sim.setFaults(Faults.none().withOutage(true));
        // One request's retries reach the breaker's threshold: the provider may have executed a 5xx'd
        // charge, so that payment is UNKNOWN, not failed.
        ApiResponse tripping = post(newKey(), body(100, "EUR", "order_trip"));
        assertEquals(202, tripping.status());
        List<?> before = storedItems();
        int calls = sim.chargeRequests();

        String key = newKey();
        ApiResponse refused = post(key, body(4200, "EUR", "order_refused"));

        assertEquals(503, refused.status());
        assertEquals("application/problem+json", refused.header("Content-Type"));
        assertEquals("https://oncepay.dev/problems/provider-unavailable", refused.json().get("type").asText());
        assertTrue(refused.json().get("detail").asText().contains("circuit breaker open"), refused.body());
        assertNotNull(refused.header("Retry-After"));
        assertEquals(calls, sim.chargeRequests(), "an open breaker fails fast");
        assertEquals(before, storedItems(), "nothing stored for a refused request");

        sim.setFaults(Faults.none());
        breakers.resetAll();
        ApiResponse later = post(key, body(4200, "EUR", "order_refused"));
        assertEquals(201, later.status());
        assertNull(later.header("Idempotent-Replayed"));
    }

    @Test
    void aReplayIsAnsweredEvenWhileTheBreakerIsOpen() {
        String key = newKey();
        ApiResponse first = post(key, body(4200, "EUR", "order_before_outage"));
        sim.setFaults(Faults.none().withServerErrorRate(1.0));
        assertEquals(202, post(newKey(), body(100, "EUR", "order_trip")).status());
        int calls = sim.chargeRequests();

        ApiResponse replay = post(key, body(4200, "EUR", "order_before_outage"));

        assertEquals(201, replay.status(), "stored answers never depend on the provider");
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.body(), replay.body());
        assertEquals(422, post(key, body(1, "EUR", "order_before_outage")).status());
        assertEquals(calls, sim.chargeRequests());
    }

    @Test
    void providerThrottlingBeyondOurDeadlineIs503AndReleasesTheKey() {
        // 429 with a Retry-After longer than a synchronous charge may wait: nothing was executed.
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(30));
        String key = newKey();
        ApiResponse refused = post(key, body(4200, "EUR", "order_throttled"));

        assertEquals(503, refused.status());
        assertEquals(1, sim.chargeRequests());
        assertTrue(storedItems().isEmpty(), "claim and payment were released");
        assertTrue(sim.ledger().isEmpty());

        sim.setFaults(Faults.none());
        ApiResponse retry = post(key, body(4200, "EUR", "order_throttled"));
        assertEquals(201, retry.status());
        assertNull(retry.header("Idempotent-Replayed"));
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void getReturnsThePaymentOfThisTenantOnly() {
        ApiResponse created = post(newKey(), body(4200, "EUR", "order_get"));
        String id = created.json().get("id").asText();

        ApiResponse found = get(id);
        assertEquals(200, found.status());
        assertEquals(id, found.json().path("order").path("paymentId").asText(), "bound to its order");
        assertEquals(created.json(), shownAsCharged(id));

        ApiResponse foreign = dev.oncepay.testing.LambdaClient
                .call(dev.oncepay.testkit.HttpApiEvents.getPayment("someone-else", id));
        assertEquals(404, foreign.status());
        assertFalse(foreign.body().contains("order_get"));
    }

    private static List<String> fieldNames(ApiResponse response) {
        List<String> names = new java.util.ArrayList<>();
        response.json().fieldNames().forEachRemaining(names::add);
        return names;
    }
}
