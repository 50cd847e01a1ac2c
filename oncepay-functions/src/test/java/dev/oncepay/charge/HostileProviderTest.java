package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The charge function against a provider with real providers' habits (the simulator's hostile
 * faults, over HTTP): only an explicit final answer is an outcome (design rule 11), and every wait
 * fits the deadline (design rule 12). Through the function with real API Gateway event JSON.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class HostileProviderTest extends ChargeTestSupport {
    /** Far below the 120 s the provider asks for; far above what answering at once costs here. */
    private static final Duration PROMPTLY = Duration.ofSeconds(20);

    @Test
    void aProcessingAnswerIs202NotADecline() {
        sim.setFaults(Faults.none().withNonFinalRate(1.0));
        String key = newKey();

        ApiResponse answer = post(key, body(4200, "EUR", "order_processing"));

        assertAccepted(answer);
        String id = answer.json().get("id").asText();
        assertEquals(1, ledgerChargesFor(id), "the provider did charge");
        assertEquals("succeeded", sim.ledger().get(0).status());
        assertEquals(1, sim.chargeRequests(), "a non-final answer is no fault to retry");
        assertEquals("pending", get(id).json().get("status").asText());
        ApiResponse replay = post(key, body(4200, "EUR", "order_processing"));
        assertEquals(202, replay.status());
        assertEquals(answer.body(), replay.body());
    }

    @Test
    void twoXxWithoutAFinalChargeIs202NotADecline() {
        List<String> unclear = List.of("", "<html><body>OK</body></html>", "{\"id\":\"ch_x\"",
                "{\"object\":\"charge\"}", "{\"id\":\"ch_x\",\"status\":\"requires_action\"}",
                "{\"id\":\"ch_x\",\"status\":\"pending\"}", "{\"id\":\"ch_x\",\"status\":\"Succeeded\"}");
        for (int i = 0; i < unclear.size(); i++) { // one order each: a live order refuses another key
            String body = unclear.get(i);
            sim.scriptAnswerAfterCommit(200, body);
            assertUnknownAfterOneCharge(post(newKey(), body(4200, "EUR", "order_2xx_" + i)), "200 " + body);
        }
        sim.scriptAnswerAfterCommit(204, "");
        assertUnknownAfterOneCharge(post(newKey(), body(4200, "EUR", "order_204")), "204");
        sim.scriptAnswerAfterCommit(202, "{\"id\":\"ch_x\",\"status\":\"processing\"}");
        assertUnknownAfterOneCharge(post(newKey(), body(4200, "EUR", "order_202")), "202 processing");
    }

    @Test
    void emptyBodiesFromTheFaultProfileAre202() {
        sim.setFaults(Faults.none().withEmptyBodyRate(1.0));
        for (int i = 0; i < 4; i++) { // the seeded dice give both 200 and 204 among these
            assertUnknownAfterOneCharge(post(newKey(), body(100 + i, "EUR", "order_empty_" + i)), "empty body " + i);
        }
        assertEquals(4, sim.ledger().size());
    }

    @Test
    void anAnswerAboutAnotherChargeIs202() {
        sim.scriptAnswerAfterCommit(200,
                "{\"id\":\"ch_other\",\"status\":\"succeeded\",\"reference\":\"pay_someone_else\",\"amount\":4200,\"currency\":\"EUR\"}");
        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_mixup"));
        assertUnknownAfterOneCharge(answer, "another payment's charge");
        assertNull(storedPayment(answer.json().get("id").asText()).get(Table.PROVIDER_PAYMENT_ID));
    }

    @Test
    void aKeyInFlightAtTheProviderIsAskedAgainWithTheSameKey() {
        // The first attempt commits there and is answered 409; the retry gets the stored result.
        sim.setFaults(Faults.none().withConflictRate(1.0));

        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_conflict"));

        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().get("id").asText();
        List<LedgerEntry> charges = sim.ledger();
        assertEquals(1, charges.size(), "one charge for two requests: the retry used the same key");
        assertEquals("oncepay-" + id, charges.get(0).idempotencyKey());
        assertEquals(charges.get(0).id(), answer.json().get("providerPaymentId").asText());
        assertEquals(2, sim.chargeRequests());
    }

    @Test
    void aKeyStillInFlightWhenTheRetriesEndIs202() {
        sim.scriptChargeAnswers(409, 409, 409, 409);

        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_conflict_long"));

        assertAccepted(answer);
        assertEquals(4, sim.chargeRequests(), "1 attempt + 3 retries, all with the same key");
    }

    @Test
    void a503AskingFor120SecondsIs202AtOnce() {
        sim.setFaults(Faults.none().withOutage(true).withServerErrorRetryAfterSeconds(120));

        long started = System.nanoTime();
        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_503_120"));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);

        assertAccepted(answer); // the 503 may have executed: only the provider can say
        assertEquals(1, sim.chargeRequests(), "a wait that does not fit ends the retries");
        assertTrue(elapsed.compareTo(PROMPTLY) < 0, "answered after " + elapsed);
    }

    @Test
    void a429AskingFor120SecondsIs503AndReleasesTheKey() {
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(120));
        String key = newKey();

        long started = System.nanoTime();
        ApiResponse refused = post(key, body(4200, "EUR", "order_429_120"));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);

        assertEquals(503, refused.status(), refused.body());
        assertEquals("https://oncepay.dev/problems/provider-unavailable", refused.json().get("type").asText());
        assertNotNull(refused.header("Retry-After"));
        assertTrue(elapsed.compareTo(PROMPTLY) < 0, "answered after " + elapsed);
        assertEquals(1, sim.chargeRequests());
        assertTrue(sim.ledger().isEmpty(), "nothing charged");
        assertTrue(storedItems().isEmpty(), "claim and payment were released");

        sim.setFaults(Faults.none());
        ApiResponse retry = post(key, body(4200, "EUR", "order_429_120"));
        assertEquals(201, retry.status());
        assertNull(retry.header("Idempotent-Replayed"));
        assertEquals(1, sim.ledger().size());
    }

    private void assertUnknownAfterOneCharge(ApiResponse answer, String what) {
        assertAccepted(answer);
        String id = answer.json().get("id").asText();
        assertEquals(1, ledgerChargesFor(id), what + ": the provider did charge");
        assertEquals("UNKNOWN", storedPayment(id).get(Table.STATUS).s(), what);
    }

    private void assertAccepted(ApiResponse answer) {
        assertEquals(202, answer.status(), answer.body());
        String id = answer.json().get("id").asText();
        assertEquals("pending", answer.json().get("status").asText());
        assertEquals("/payments/" + id, answer.header("Location"));
        assertNotNull(answer.header("Retry-After"));
        assertEquals("UNKNOWN", storedPayment(id).get(Table.STATUS).s());
        assertNotNull(storedPayment(id).get(Table.NEXT_CHECK_AT), "listed for the sweep");
        assertNull(storedPayment(id).get(Table.DECLINE_CODE), "not a decline");
    }
}
