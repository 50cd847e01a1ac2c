package dev.oncepay.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.testkit.SettableClock;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Drives the generic API's refunds through real HTTP, as oncepay's refund handling will. */
class RefundsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final SimHttp http = new SimHttp(() -> this.sim);
    private PspSimulator sim;

    @BeforeEach
    void start() {
        sim = PspSimulator.start(0);
    }

    @AfterEach
    void stop() {
        sim.close();
    }

    @Test
    void aRefundIsAnsweredRecordedAndReplayedForItsKey() throws Exception {
        String charge = charge(100);

        HttpResponse<String> first = refund("r-1", body(charge, 30, "rf_1"));
        HttpResponse<String> replay = refund("r-1", body(charge, 30, "rf_1"));
        HttpResponse<String> otherBody = refund("r-1", body(charge, 31, "rf_1"));

        assertEquals(200, first.statusCode());
        JsonNode refund = JSON.readTree(first.body());
        assertTrue(refund.get("id").asText().startsWith("re_"));
        assertEquals("refund", refund.get("object").asText());
        assertEquals(charge, refund.get("charge").asText());
        assertEquals(30, refund.get("amount").asLong());
        assertEquals("EUR", refund.get("currency").asText());
        assertEquals("succeeded", refund.get("status").asText());
        assertEquals("rf_1", refund.get("reference").asText());
        assertTrue(refund.get("created").isIntegralNumber());
        assertEquals(first.body(), replay.body());
        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(409, otherBody.statusCode());
        assertEquals("idempotency_mismatch", SimHttp.errorType(otherBody));
        assertEquals(1, sim.refunds().size());
        assertEquals(3, sim.refundRequests());

        JsonNode ledger = JSON.readTree(http.get("/_sim/ledger").body()).get("refunds");
        assertEquals(1, ledger.size());
        assertEquals(refund.get("id").asText(), ledger.get(0).get("id").asText());
        assertEquals("r-1", ledger.get(0).get("idempotencyKey").asText());
        assertEquals("succeeded", ledger.get(0).get("status").asText());
    }

    @Test
    void withoutAnAmountARefundTakesWhatIsLeftAndMetadataIsKept() throws Exception {
        String charge = charge(100);
        refund("r-1", body(charge, 30, "rf_1"));

        HttpResponse<String> rest = refund("r-2",
                "{\"charge\":\"" + charge + "\",\"reference\":\"rf_2\",\"metadata\":{\"reason\":\"returned\"}}");
        HttpResponse<String> nothingLeft = refund("r-3", "{\"charge\":\"" + charge + "\",\"reference\":\"rf_3\"}");

        assertEquals(70, JSON.readTree(rest.body()).get("amount").asLong());
        assertEquals("returned", JSON.readTree(rest.body()).get("metadata").get("reason").asText());
        assertEquals(Map.of("reason", "returned"), sim.refunds().get(1).metadata());
        assertEquals(400, nothingLeft.statusCode());
        assertEquals("amount_too_large", SimHttp.errorType(nothingLeft));
        assertEquals(2, sim.refunds().size());
    }

    @Test
    void anOverRefundAnUnknownOrDeclinedChargeAndInvalidBodiesAreRefusedAndNotRecorded() throws Exception {
        String charge = charge(100);
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        String declined = charge(100);
        sim.setFaults(Faults.none());

        HttpResponse<String> tooLarge = refund("r-1", body(charge, 101, "rf_1"));
        HttpResponse<String> unknown = refund("r-2", body("ch_unknown", 10, "rf_2"));
        HttpResponse<String> notRefundable = refund("r-3", body(declined, 10, "rf_3"));
        HttpResponse<String> noKey = http.send(HttpRequest.newBuilder(http.uri("/v1/refunds"))
                .POST(HttpRequest.BodyPublishers.ofString(body(charge, 10, "rf_4"))).build());

        assertEquals(400, tooLarge.statusCode());
        assertEquals("amount_too_large", SimHttp.errorType(tooLarge));
        assertEquals(404, unknown.statusCode());
        assertEquals(400, notRefundable.statusCode());
        assertEquals("charge_not_refundable", SimHttp.errorType(notRefundable));
        assertEquals(400, noKey.statusCode());
        String valid = body(charge, 10, "rf_5");
        for (String invalid : List.of(valid.replace(":10,", ":0,"), valid.replace(":10,", ":1.5,"),
                valid.replace("\"rf_5\"", "\"\""), "{\"amount\":10,\"reference\":\"rf\"}",
                valid.replace("}", ",\"metadata\":{\"n\":1}}"), "not json", "[]")) {
            assertEquals(400, refund("key-" + invalid.hashCode(), invalid).statusCode(), invalid);
        }
        assertTrue(sim.refunds().isEmpty());
        // A refused key stored nothing: it still works for a valid refund.
        assertEquals(200, refund("r-1", body(charge, 100, "rf_1")).statusCode());
    }

    @Test
    void twentyConcurrentRefundsOfTenOnACharge100SucceedExactlyTenTimes() throws Exception {
        String charge = charge(100);
        List<HttpRequest> refunds = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            refunds.add(refundRequest("r-" + i, body(charge, 10, "rf_" + i), Duration.ofSeconds(5)));
        }

        // All 20 are inside the provider before any executes: a real race on one charge.
        Map<Integer, Long> statuses = http.releasedAtOnce(refunds);
        assertEquals(Map.of(200, 10L, 400, 10L), statuses);
        assertEquals(10, sim.refunds().size());
        assertEquals(100, sim.refunds().stream().mapToLong(Refund::amount).sum());
    }

    @Test
    void lookupsFindARefundByIdAndByReferenceAfterTheLag() throws Exception {
        SettableClock clock = new SettableClock();
        sim.close();
        sim = PspSimulator.start(SimulatorOptions.onPort(0).withClock(clock));
        String charge = charge(100);
        http.post("/_sim/faults", "{\"lookupLagMs\":60000}");
        JsonNode refund = JSON.readTree(refund("r-1", body(charge, 40, "rf_1")).body());

        HttpResponse<String> byId = http.get("/v1/refunds/" + refund.get("id").asText());
        JsonNode early = JSON.readTree(http.get("/v1/refunds?reference=rf_1").body());
        clock.advance(Duration.ofSeconds(60));
        JsonNode visible = JSON.readTree(http.get("/v1/refunds?reference=rf_1").body());

        assertEquals(200, byId.statusCode());
        assertEquals(refund, JSON.readTree(byId.body())); // a retrieve by id does not lag
        assertEquals(0, early.get("data").size());
        assertEquals(List.of(refund), List.of(visible.get("data").get(0)));
        assertEquals(404, http.get("/v1/refunds/re_unknown").statusCode());
        assertEquals(400, http.get("/v1/refunds").statusCode());
        assertEquals(5, sim.refundLookupRequests());

        http.post("/_sim/faults", "{\"malformedLookupRate\":1.0}");
        HttpResponse<String> malformed = http.get("/v1/refunds?reference=rf_1");
        assertEquals(200, malformed.statusCode());
        assertFalse(JSON.readTree(malformed.body()).path("data").isArray(), malformed.body());
    }

    @Test
    void succeededAndFailedRefundsSendSignedEventsCarryingTheRefund() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/sim", WebhookSignature.HEADER, 0)) {
            sim.setWebhookTarget(receiver.uri(), "whsec_test", "sim");
            String charge = charge(100);
            receiver.next(); // charge.succeeded

            sim.setFaults(Faults.none().withRefundFailRate(1.0));
            JsonNode failed = JSON.readTree(refund("r-1", body(charge, 100, "rf_1")).body());
            WebhookReceiver.Received failedEvent = receiver.next();
            sim.setFaults(Faults.none());
            JsonNode succeeded = JSON.readTree(refund("r-2", body(charge, 100, "rf_2")).body());
            WebhookReceiver.Received succeededEvent = receiver.next();

            assertEquals("failed", failed.get("status").asText());
            assertEquals("refund.failed", failedEvent.json().get("type").asText());
            assertEquals(failed, failedEvent.json().get("data"));
            // A failed refund holds nothing: the whole charge could still be refunded.
            assertEquals("succeeded", succeeded.get("status").asText());
            assertEquals("refund.succeeded", succeededEvent.json().get("type").asText());
            assertEquals(succeeded, succeededEvent.json().get("data"));
            assertTrue(succeededEvent.json().get("id").asText().startsWith("evt_"));
            assertTrue(succeededEvent.signedWith("whsec_test"));
        }
    }

    @Test
    void aPendingRefundHoldsItsAmountAndSettlesLaterWithItsEvent() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/sim", WebhookSignature.HEADER, 0)) {
            sim.setWebhookTarget(receiver.uri(), "whsec_test", "sim");
            String charge = charge(100);
            receiver.next();
            sim.setFaults(Faults.none().withNonFinalRate(1.0).withRefundSettleMs(300));

            JsonNode pending = JSON.readTree(refund("r-1", body(charge, 60, "rf_1")).body());
            HttpResponse<String> beyond = refund("r-2", body(charge, 41, "rf_2"));
            WebhookReceiver.Received settled = receiver.next();

            assertEquals("pending", pending.get("status").asText());
            assertEquals(400, beyond.statusCode()); // the pending 60 counts against the charge
            assertEquals("refund.succeeded", settled.json().get("type").asText());
            assertEquals("succeeded", settled.json().get("data").get("status").asText());
            assertEquals(RefundStatus.SUCCEEDED, sim.refunds().get(0).status());
            assertEquals("succeeded", JSON.readTree(http.get("/v1/refunds/" + pending.get("id").asText()).body())
                    .get("status").asText());

            sim.setFaults(Faults.none().withNonFinalRate(1.0).withRefundFailRate(1.0).withRefundSettleMs(0));
            refund("r-3", body(charge, 40, "rf_3"));
            assertEquals("refund.failed", receiver.next().json().get("type").asText());
            assertEquals(RefundStatus.FAILED, sim.refunds().get(1).status());
        }
    }

    @Test
    void theChargesFaultsApplyToRefunds() throws Exception {
        String charge = charge(100);

        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(3));
        HttpResponse<String> limited = refund("r-1", body(charge, 10, "rf_1"));
        sim.setFaults(Faults.none().withServerErrorRate(1.0));
        HttpResponse<String> failing = refund("r-1", body(charge, 10, "rf_1"));
        sim.setFaults(Faults.none().withOutage(true));
        HttpResponse<String> down = refund("r-1", body(charge, 10, "rf_1"));
        HttpResponse<String> downLookup = http.get("/v1/refunds?reference=rf_1");
        assertEquals(429, limited.statusCode());
        assertEquals("3", limited.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(Set.of(500, 502).contains(failing.statusCode()));
        assertEquals(503, down.statusCode());
        assertEquals(503, downLookup.statusCode());
        assertTrue(sim.refunds().isEmpty());

        sim.setFaults(Faults.none().withConflictRate(1.0));
        HttpResponse<String> inFlight = refund("r-1", body(charge, 10, "rf_1"));
        sim.setFaults(Faults.none().withEmptyBodyRate(1.0));
        HttpResponse<String> empty = refund("r-2", body(charge, 10, "rf_2"));
        sim.setFaults(Faults.none());
        HttpResponse<String> afterConflict = refund("r-1", body(charge, 10, "rf_1"));
        assertEquals(409, inFlight.statusCode());
        assertTrue(Set.of(200, 204).contains(empty.statusCode()));
        assertEquals("", empty.body());
        assertEquals(sim.refunds().get(0).id(), JSON.readTree(afterConflict.body()).get("id").asText());
        assertEquals(2, sim.refunds().size());

        sim.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(5000));
        assertThrows(HttpTimeoutException.class, () -> http.client.send(
                refundRequest("r-3", body(charge, 10, "rf_3"), Duration.ofMillis(300)), HttpResponse.BodyHandlers.ofString()));
        awaitRefunds(3);
        sim.setFaults(Faults.none());
        HttpResponse<String> retry = refund("r-3", body(charge, 10, "rf_3"));
        assertEquals(sim.refunds().get(2).id(), JSON.readTree(retry.body()).get("id").asText());

        sim.setFaults(Faults.none().withResetRate(1.0));
        HttpClient fresh = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        assertThrows(IOException.class, () -> fresh.send(refundRequest("r-4", body(charge, 10, "rf_4"),
                Duration.ofSeconds(5)), HttpResponse.BodyHandlers.ofString()));
        assertEquals(3, sim.refunds().size());
    }

    @Test
    void refundsDrawTheirOwnDiceSoTheyNeverShiftTheChargesFaults() throws Exception {
        List<Integer> alone = chargeStatusesWithHalfFailing(false);
        sim.reset();
        List<Integer> withRefunds = chargeStatusesWithHalfFailing(true);

        assertEquals(alone, withRefunds);
        assertTrue(Set.copyOf(alone).size() > 1, alone.toString());
    }

    // --- helpers --------------------------------------------------------------------------------

    private List<Integer> chargeStatusesWithHalfFailing(boolean refundsBetween) throws Exception {
        sim.setFaults(Faults.none().withServerErrorRate(0.5));
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            statuses.add(http.send(chargeRequest("c-" + i, 10)).statusCode());
            if (refundsBetween) {
                refund("r-" + i, body("ch_unknown", 1, "rf_" + i));
            }
        }
        return statuses;
    }

    private void awaitRefunds(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (sim.refunds().size() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, sim.refunds().size());
    }

    /** A succeeded charge of {@code amount} EUR minor units; its id. */
    private String charge(long amount) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(chargeRequest("charge-" + System.nanoTime(), amount));
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body()).get("id").asText();
    }

    private HttpRequest chargeRequest(String key, long amount) {
        return HttpRequest.newBuilder(http.uri("/v1/charges"))
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"pay_" + key + "\"}"))
                .build();
    }

    private static String body(String charge, long amount, String reference) {
        return "{\"charge\":\"" + charge + "\",\"amount\":" + amount + ",\"reference\":\"" + reference + "\"}";
    }

    private HttpResponse<String> refund(String key, String body) throws IOException, InterruptedException {
        return http.send(refundRequest(key, body, Duration.ofSeconds(5)));
    }

    private HttpRequest refundRequest(String key, String body, Duration timeout) {
        return http.idempotentPost("/v1/refunds", key, body, timeout);
    }
}
