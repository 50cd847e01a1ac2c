package dev.oncepay.sim;

import dev.oncepay.testkit.SettableClock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Drives the simulator through real HTTP, as the payment functions will. */
class PspSimulatorTest {

    private static final String BODY = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"pay_1\",\"description\":\"order_9182\"}";
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
    void sameKeyAndBodyReplaysTheFirstAnswerWithoutExecutingAgain() throws Exception {
        HttpResponse<String> first = charge("key-1", BODY);
        // Same fields in another order: the same request once parsed.
        HttpResponse<String> replay = charge("key-1",
                "{\"description\":\"order_9182\",\"reference\":\"pay_1\",\"currency\":\"EUR\",\"amount\":4200}");

        assertEquals(200, first.statusCode());
        assertEquals("application/json", first.headers().firstValue("Content-Type").orElseThrow());
        JsonNode charge = JSON.readTree(first.body());
        assertTrue(charge.get("id").asText().startsWith("ch_"));
        assertEquals("succeeded", charge.get("status").asText());
        assertEquals("pay_1", charge.get("reference").asText());
        assertEquals(4200, charge.get("amount").asLong());
        assertEquals("order_9182", charge.get("description").asText());
        assertTrue(charge.get("created").isIntegralNumber());

        assertEquals(200, replay.statusCode());
        assertEquals(first.body(), replay.body());
        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(1, sim.ledger().size());
        assertEquals(2, sim.chargeRequests());

        JsonNode ledger = JSON.readTree(http.get("/_sim/ledger").body()).get("charges");
        assertEquals(1, ledger.size());
        assertEquals(charge.get("id").asText(), ledger.get(0).get("id").asText());
        assertEquals("key-1", ledger.get(0).get("idempotencyKey").asText());
        assertEquals("succeeded", ledger.get(0).get("status").asText());
        assertNotNull(Instant.parse(ledger.get(0).get("createdAt").asText()));
    }

    @Test
    void sameKeyWithAnotherBodyIsRejected() throws Exception {
        charge("key-1", BODY);
        HttpResponse<String> other = charge("key-1", BODY.replace("4200", "4300"));

        assertEquals(409, other.statusCode());
        assertEquals("idempotency_mismatch", SimHttp.errorType(other));
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void missingKeyAndInvalidBodiesAreRejectedAndNotExecuted() throws Exception {
        HttpResponse<String> noKey = http.send(HttpRequest.newBuilder(http.uri("/v1/charges"))
                .POST(HttpRequest.BodyPublishers.ofString(BODY)).build());
        assertEquals(400, noKey.statusCode());
        assertEquals("invalid_request", SimHttp.errorType(noKey));

        for (String invalid : List.of(
                BODY.replace("4200", "0"), BODY.replace("4200", "-5"), BODY.replace("4200", "42.5"),
                BODY.replace("4200", "\"4200\""), BODY.replace("EUR", "eur"), BODY.replace("EUR", "EURO"),
                BODY.replace("\"pay_1\"", "\"\""), "{\"amount\":1,\"currency\":\"EUR\"}", "not json", "[]")) {
            assertEquals(400, charge("key-" + invalid.hashCode(), invalid).statusCode(), invalid);
        }
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void concurrentIdenticalRequestsExecuteOnce() throws Exception {
        sim.holdCharges();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(http.client.sendAsync(chargeRequest("same-key", BODY, Duration.ofSeconds(5)),
                    HttpResponse.BodyHandlers.ofString()));
        }
        // All 20 are inside the provider at once before any executes: a real race on one key.
        assertTrue(sim.awaitHeldRequests(20, Duration.ofSeconds(5)));
        sim.releaseCharges();

        Set<String> bodies = calls.stream().map(CompletableFuture::join)
                .peek(response -> assertEquals(200, response.statusCode()))
                .map(HttpResponse::body)
                .collect(Collectors.toSet());
        assertEquals(1, bodies.size());
        assertEquals(1, sim.ledger().size());
        assertEquals(20, sim.chargeRequests());
    }

    @Test
    void rateLimitAnswers429WithRetryAfterAndExecutesNothing() throws Exception {
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(3));

        HttpResponse<String> response = charge("key-1", BODY);

        assertEquals(429, response.statusCode());
        assertEquals("3", response.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void serverErrorAnswers5xxAndExecutesNothing() throws Exception {
        sim.setFaults(Faults.none().withServerErrorRate(1.0));

        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            statuses.add(charge("key-" + i, BODY).statusCode());
        }

        assertTrue(Set.of(500, 502).containsAll(statuses), statuses.toString());
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void resetClosesTheConnectionWithoutAnswerAndExecutesNothing() throws Exception {
        assertEquals(200, charge("warm-up", BODY.replace("pay_1", "pay_0")).statusCode()); // pooled connection
        sim.setFaults(Faults.none().withResetRate(1.0));

        IOException pooled = assertThrows(IOException.class, () -> charge("key-1", BODY));
        HttpClient fresh = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        IOException unpooled = assertThrows(IOException.class,
                () -> fresh.send(chargeRequest("key-2", BODY, Duration.ofSeconds(5)), HttpResponse.BodyHandlers.ofString()));

        assertNotNull(pooled.getMessage());
        assertNotNull(unpooled.getMessage());
        assertEquals(1, sim.ledger().size()); // only the warm-up
        assertEquals(3, sim.chargeRequests()); // and the JDK client did not silently re-send the POST
    }

    @Test
    void commitThenTimeoutExecutesWhileTheClientTimesOutAndARetryReplaysIt() throws Exception {
        HttpResponse<String> configured = http.post("/_sim/faults", "{\"commitThenTimeoutRate\":1.0,\"commitThenTimeoutMs\":5000}");
        assertEquals(5000, JSON.readTree(configured.body()).get("commitThenTimeoutMs").asLong());

        assertThrows(HttpTimeoutException.class, () -> http.client.send(
                chargeRequest("key-1", BODY, Duration.ofMillis(300)), HttpResponse.BodyHandlers.ofString()));
        awaitLedgerSize(1); // recorded before the sleep; polled only to tolerate a loaded machine

        // The first handler is still sleeping; the retry must be served meanwhile.
        sim.setFaults(Faults.none());
        HttpResponse<String> retry = charge("key-1", BODY);
        assertEquals(200, retry.statusCode());
        assertEquals(sim.ledger().get(0).id(), JSON.readTree(retry.body()).get("id").asText());
        assertEquals(1, sim.ledger().size());

        long closing = System.nanoTime();
        sim.close();
        assertTrue(Duration.ofNanos(System.nanoTime() - closing).toMillis() < 2000, "close waited for the sleeper");
    }

    @Test
    void declineIsExecutedAndRecordedAsDeclined() throws Exception {
        sim.setFaults(Faults.none().withDeclineRate(1.0));

        JsonNode charge = JSON.readTree(charge("key-1", BODY).body());

        assertEquals("declined", charge.get("status").asText());
        assertEquals("card_declined", charge.get("declineCode").asText());
        assertEquals("declined", sim.ledger().get(0).status());
    }

    @Test
    void outageRejectsChargesAndLookups() throws Exception {
        http.post("/_sim/faults", "{\"outage\":true}");

        HttpResponse<String> charge = charge("key-1", BODY);
        HttpResponse<String> lookup = http.get("/v1/charges?reference=pay_1");

        assertEquals(503, charge.statusCode());
        assertEquals("outage", SimHttp.errorType(charge));
        assertEquals(503, lookup.statusCode());
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void latencyDelaysTheAnswer() throws Exception {
        sim.setFaults(Faults.none().withLatencyMs(300));

        long started = System.nanoTime();
        assertEquals(200, http.get("/v1/charges?reference=pay_1").statusCode());

        assertTrue(Duration.ofNanos(System.nanoTime() - started).toMillis() >= 300);
    }

    @Test
    void lookupListsTheChargesOfAReference() throws Exception {
        charge("key-1", BODY);
        charge("key-2", BODY.replace("4200", "100"));
        charge("key-3", BODY.replace("pay_1", "pay_2"));

        JsonNode data = JSON.readTree(http.get("/v1/charges?reference=pay_1").body()).get("data");
        assertEquals(2, data.size());
        assertEquals(Set.of(4200L, 100L), Set.of(data.get(0).get("amount").asLong(), data.get(1).get("amount").asLong()));
        assertEquals("pay_1", data.get(0).get("reference").asText());
        assertEquals(0, JSON.readTree(http.get("/v1/charges?reference=nobody").body()).get("data").size());
        assertEquals(400, http.get("/v1/charges").statusCode());
        assertEquals(3, sim.lookupRequests());
    }

    @Test
    void faultsEndpointMergesValidatesAndReads() throws Exception {
        JsonNode merged = JSON.readTree(http.post("/_sim/faults", "{\"declineRate\":0.5}").body());
        assertEquals(0.5, merged.get("declineRate").asDouble());
        assertEquals(0, merged.get("latencyMs").asLong());
        assertEquals(20, merged.size());

        http.post("/_sim/faults", "{\"latencyMs\":10}");
        assertEquals(400, http.post("/_sim/faults", "{\"serverErrorRate\":1.5}").statusCode());
        assertEquals(400, http.post("/_sim/faults", "{\"latency\":10}").statusCode());
        assertEquals(400, http.post("/_sim/faults", "{\"outage\":\"yes\"}").statusCode());
        assertEquals(400, http.post("/_sim/faults", "{\"conflictRate\":2}").statusCode());
        assertEquals(400, http.post("/_sim/faults", "{\"lookupLagMs\":-1}").statusCode());
        assertEquals(400, http.post("/_sim/faults", "{\"serverErrorRetryAfterSeconds\":1.5}").statusCode());
        JsonNode hostile = JSON.readTree(http.post("/_sim/faults", "{\"nonFinalRate\":0.25,\"emptyBodyRate\":0.5,"
                + "\"serverErrorRetryAfterSeconds\":120,\"conflictRate\":0.75,\"lookupLagMs\":2000,"
                + "\"malformedLookupRate\":1.0}").body());
        assertEquals(0.25, hostile.get("nonFinalRate").asDouble());
        assertEquals(120, hostile.get("serverErrorRetryAfterSeconds").asLong());
        assertEquals(2000, hostile.get("lookupLagMs").asLong());
        assertEquals(Faults.none().withDeclineRate(0.5).withLatencyMs(10).withNonFinalRate(0.25).withEmptyBodyRate(0.5)
                .withServerErrorRetryAfterSeconds(120).withConflictRate(0.75).withLookupLagMs(2000)
                .withMalformedLookupRate(1.0), sim.faults());
        http.post("/_sim/faults", "{\"nonFinalRate\":0,\"emptyBodyRate\":0,\"serverErrorRetryAfterSeconds\":0,"
                + "\"conflictRate\":0,\"lookupLagMs\":0,\"malformedLookupRate\":0}");

        JsonNode current = JSON.readTree(http.get("/_sim/faults").body());
        assertEquals(0.5, current.get("declineRate").asDouble());
        assertEquals(10, current.get("latencyMs").asLong());
        assertEquals(0.0, current.get("serverErrorRate").asDouble());
        assertEquals(Faults.none().withDeclineRate(0.5).withLatencyMs(10), sim.faults());
    }

    @Test
    void nonFinalAnswersProcessingWhileTheChargeSucceedsAndLookupsAndWebhooksSaySo() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/sim", WebhookSignature.HEADER, 0)) {
            sim.setWebhookTarget(receiver.uri(), "whsec_test", "sim");
            http.post("/_sim/faults", "{\"nonFinalRate\":1.0}");

            HttpResponse<String> answer = charge("key-1", BODY);

            assertEquals(200, answer.statusCode());
            JsonNode charge = JSON.readTree(answer.body());
            assertEquals("processing", charge.get("status").asText());
            assertEquals(sim.ledger().get(0).id(), charge.get("id").asText());
            assertEquals("succeeded", sim.ledger().get(0).status());
            assertEquals("succeeded", JSON.readTree(http.get("/v1/charges?reference=pay_1").body())
                    .get("data").get(0).get("status").asText());
            assertEquals("succeeded", receiver.next().json().get("data").get("status").asText());

            sim.setFaults(Faults.none()); // the key's stored answer is the final one
            JsonNode replay = JSON.readTree(charge("key-1", BODY).body());
            assertEquals("succeeded", replay.get("status").asText());
            assertEquals(1, sim.ledger().size());
        }
    }

    @Test
    void emptyBodyAnswers2xxWithoutABodyAfterExecuting() throws Exception {
        http.post("/_sim/faults", "{\"emptyBodyRate\":1.0}");

        Set<Integer> statuses = new java.util.TreeSet<>();
        for (int i = 0; i < 8; i++) {
            HttpResponse<String> answer = charge("key-" + i, BODY.replace("pay_1", "pay_" + i));
            statuses.add(answer.statusCode());
            assertEquals("", answer.body());
        }

        assertEquals(Set.of(200, 204), statuses); // both shapes, in the seeded order
        assertEquals(8, sim.ledger().size());
    }

    @Test
    void serverErrorsCarryTheConfiguredRetryAfter() throws Exception {
        sim.setFaults(Faults.none().withServerErrorRate(1.0));
        assertTrue(charge("key-1", BODY).headers().firstValue("Retry-After").isEmpty());

        http.post("/_sim/faults", "{\"serverErrorRetryAfterSeconds\":120}");
        HttpResponse<String> serverError = charge("key-2", BODY);
        http.post("/_sim/faults", "{\"serverErrorRate\":0.0,\"outage\":true}");
        HttpResponse<String> outage = charge("key-3", BODY);
        HttpResponse<String> lookup = http.get("/v1/charges?reference=pay_1");
        sim.setFaults(Faults.none().withServerErrorRetryAfterSeconds(120));
        sim.scriptChargeAnswers(503);
        HttpResponse<String> scripted = charge("key-4", BODY);

        for (HttpResponse<String> answer : List.of(serverError, outage, lookup, scripted)) {
            assertTrue(answer.statusCode() >= 500, answer::toString);
            assertEquals("120", answer.headers().firstValue("Retry-After").orElseThrow(), answer::toString);
        }
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void conflictCommitsTheChargeAnswers409AndALaterRequestGetsTheStoredResult() throws Exception {
        http.post("/_sim/faults", "{\"conflictRate\":1.0}");

        HttpResponse<String> inFlight = charge("key-1", BODY);
        HttpResponse<String> later = charge("key-1", BODY);

        assertEquals(409, inFlight.statusCode());
        assertEquals("idempotency_error", SimHttp.errorType(inFlight));
        assertEquals(1, sim.ledger().size());
        assertEquals(200, later.statusCode());
        assertEquals("true", later.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(sim.ledger().get(0).id(), JSON.readTree(later.body()).get("id").asText());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void lookupsListAChargeOnlyAfterTheLookupLag() throws Exception {
        SettableClock clock = new SettableClock();
        sim.close();
        sim = PspSimulator.start(SimulatorOptions.onPort(0).withClock(clock));
        http.post("/_sim/faults", "{\"lookupLagMs\":60000}");
        charge("key-1", BODY);

        JsonNode early = JSON.readTree(http.get("/v1/charges?reference=pay_1").body());
        clock.advance(Duration.ofSeconds(59));
        JsonNode stillEarly = JSON.readTree(http.get("/v1/charges?reference=pay_1").body());
        clock.advance(Duration.ofSeconds(1));
        JsonNode visible = JSON.readTree(http.get("/v1/charges?reference=pay_1").body());

        assertEquals(0, early.get("data").size()); // a well-formed empty list: the lag looks like "no charge"
        assertEquals(0, stillEarly.get("data").size());
        assertEquals(1, visible.get("data").size());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void malformedLookupsAnswer200WithoutTheList() throws Exception {
        charge("key-1", BODY);
        http.post("/_sim/faults", "{\"malformedLookupRate\":1.0}");

        Set<String> bodies = new java.util.HashSet<>();
        for (int i = 0; i < 12; i++) {
            HttpResponse<String> lookup = http.get("/v1/charges?reference=pay_1");
            assertEquals(200, lookup.statusCode());
            assertFalse(JSON.readTree(lookup.body()).path("data").isArray(), lookup.body());
            bodies.add(lookup.body());
        }
        assertEquals(3, bodies.size(), bodies.toString());

        http.post("/_sim/faults", "{\"malformedLookupRate\":0.0}");
        assertEquals(1, JSON.readTree(http.get("/v1/charges?reference=pay_1").body()).get("data").size());
    }

    @Test
    void aScriptedAnswerAfterCommitExecutesAndAnswersExactlyThat() throws Exception {
        sim.scriptAnswerAfterCommit(204, "");
        sim.scriptAnswerAfterCommit(200, "<html>gateway says hi</html>");

        HttpResponse<String> noContent = charge("key-1", BODY);
        HttpResponse<String> unreadable = charge("key-1", BODY);
        HttpResponse<String> replay = charge("key-1", BODY);

        assertEquals(204, noContent.statusCode());
        assertEquals("", noContent.body());
        assertEquals(200, unreadable.statusCode());
        assertEquals("<html>gateway says hi</html>", unreadable.body());
        assertEquals(sim.ledger().get(0).id(), JSON.readTree(replay.body()).get("id").asText());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void statsCountEveryRequestPerApiRefusedOnesIncludedUntilReset() throws Exception {
        assertEquals(200, charge("key-1", BODY).statusCode());
        assertEquals(200, charge("key-1", BODY).statusCode()); // a replay is a request too
        assertEquals(400, charge("key-2", "{not json").statusCode());
        assertEquals(400, http.send(HttpRequest.newBuilder(http.uri("/v1/charges"))
                .POST(HttpRequest.BodyPublishers.ofString(BODY)).build()).statusCode()); // no key
        assertEquals(200, http.get("/v1/charges?reference=pay_1").statusCode());
        http.post("/_sim/faults", "{\"outage\":true}");
        assertEquals(503, charge("key-3", BODY).statusCode());
        assertEquals(503, http.get("/v1/charges?reference=pay_1").statusCode());
        assertEquals(404, http.get("/v1/disputes").statusCode()); // no provider endpoint: not counted

        HttpResponse<String> stats = http.get("/_sim/stats");

        assertEquals(200, stats.statusCode());
        assertEquals(JSON.readTree("""
                {"chargeRequests":5,"lookupRequests":2,"cancelRequests":0,"confirmRequests":0,"refundRequests":0,"refundLookupRequests":0,
                 "providers":{"sim":{"chargeRequests":5,"lookupRequests":2,"refundRequests":0,"refundLookupRequests":0},
                              "stripe":{"chargeRequests":0,"lookupRequests":0,"cancelRequests":0,"confirmRequests":0,
                                       "refundRequests":0,"refundLookupRequests":0}}}"""), JSON.readTree(stats.body()));
        assertEquals(5, sim.chargeRequests());
        assertEquals(405, http.post("/_sim/stats", "").statusCode());
        assertEquals(200, http.post("/_sim/reset", "").statusCode());
        assertEquals(JSON.readTree("""
                {"chargeRequests":0,"lookupRequests":0,"cancelRequests":0,"confirmRequests":0,"refundRequests":0,"refundLookupRequests":0,
                 "providers":{"sim":{"chargeRequests":0,"lookupRequests":0,"refundRequests":0,"refundLookupRequests":0},
                              "stripe":{"chargeRequests":0,"lookupRequests":0,"cancelRequests":0,"confirmRequests":0,
                                       "refundRequests":0,"refundLookupRequests":0}}}"""),
                JSON.readTree(http.get("/_sim/stats").body()));
    }

    @Test
    void resetClearsLedgerKeysFaultsAndCounters() throws Exception {
        String firstId = JSON.readTree(charge("key-1", BODY).body()).get("id").asText();
        sim.setFaults(Faults.none().withDeclineRate(1.0));

        assertEquals(200, http.post("/_sim/reset", "").statusCode());

        assertTrue(sim.ledger().isEmpty());
        assertEquals(Faults.none(), sim.faults());
        assertEquals(0, sim.chargeRequests());
        HttpResponse<String> again = charge("key-1", BODY);
        assertFalse(again.headers().firstValue("Idempotent-Replayed").isPresent());
        assertNotEquals(firstId, JSON.readTree(again.body()).get("id").asText());
        assertEquals("succeeded", JSON.readTree(again.body()).get("status").asText());
    }

    @Test
    void aKeyIsForgottenAfterTheRetention() throws Exception {
        SettableClock clock = new SettableClock();
        sim.close();
        sim = PspSimulator.start(SimulatorOptions.onPort(0).withClock(clock));

        charge("key-1", BODY);
        clock.advance(Duration.ofHours(23));
        charge("key-1", BODY);
        assertEquals(1, sim.ledger().size());

        clock.advance(Duration.ofHours(2));
        charge("key-1", BODY);
        assertEquals(2, sim.ledger().size());
    }

    @Test
    void theSameSeedGivesTheSameFaults() throws Exception {
        List<String> first = answersWithHalfFailing(sim);
        try (PspSimulator twin = PspSimulator.start(0)) {
            assertEquals(first, answersWithHalfFailing(twin));
        }
        sim.reset(); // also restarts the dice
        assertEquals(first, answersWithHalfFailing(sim));
    }

    @Test
    void closingReleasesParkedRequestsWithoutExecutingThem() throws Exception {
        sim.holdCharges();
        CompletableFuture<HttpResponse<String>> parked = http.client.sendAsync(
                chargeRequest("key-1", BODY, Duration.ofSeconds(5)), HttpResponse.BodyHandlers.ofString());
        assertTrue(sim.awaitHeldRequests(1, Duration.ofSeconds(5)));

        sim.close();

        ExecutionException dropped = assertThrows(ExecutionException.class, () -> parked.get(2, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, dropped.getCause());
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void executedChargesAreDeliveredAsSignedWebhooks() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/sim", WebhookSignature.HEADER, 0)) {
            sim.setWebhookTarget(receiver.uri(), "whsec_test", "sim");
            String chargeId = JSON.readTree(charge("key-1", BODY).body()).get("id").asText();
            sim.setFaults(Faults.none().withDeclineRate(1.0));
            charge("key-2", BODY.replace("pay_1", "pay_2"));

            WebhookReceiver.Received succeeded = receiver.next();
            WebhookReceiver.Received failed = receiver.next();
            if (!succeeded.json().get("type").asText().equals(WebhookEvent.SUCCEEDED)) { // may overtake
                WebhookReceiver.Received swap = succeeded;
                succeeded = failed;
                failed = swap;
            }

            assertTrue(succeeded.signedWith("whsec_test"));
            assertEquals("application/json", succeeded.contentType());
            JsonNode event = succeeded.json();
            assertTrue(event.get("id").asText().startsWith("evt_"));
            assertTrue(event.get("created").isIntegralNumber());
            assertEquals(chargeId, event.get("data").get("chargeId").asText());
            assertEquals("pay_1", event.get("data").get("reference").asText());
            assertEquals("succeeded", event.get("data").get("status").asText());
            assertEquals(4200, event.get("data").get("amount").asLong());
            assertEquals("EUR", event.get("data").get("currency").asText());

            assertEquals(WebhookEvent.FAILED, failed.json().get("type").asText());
            assertEquals("failed", failed.json().get("data").get("status").asText());
            assertTrue(failed.signedWith("whsec_test"));
            assertFalse(failed.signedWith("another-secret"));
            long signedAt = Long.parseLong(failed.signature().split("[=,]")[1]);
            assertEquals(failed.signature(), sim.sign(failed.body(), signedAt));
        }
    }

    @Test
    void webhooksAreRetriedAndCanBeDuplicated() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/sim", WebhookSignature.HEADER, 1)) { // the first delivery gets a 500
            sim.setWebhookTarget(receiver.uri(), "whsec_test", "sim");
            sim.setFaults(Faults.none().withWebhookDuplicateRate(1.0).withWebhookReorder(true));
            charge("key-1", BODY);

            assertTrue(sim.awaitWebhooks(Duration.ofSeconds(5)));
            WebhookReceiver.Received one = receiver.next();
            WebhookReceiver.Received two = receiver.next();
            assertEquals(one.json().get("id"), two.json().get("id"));
            assertEquals(one.body(), two.body());
            List<WebhookAttempt> attempts = sim.webhookAttempts();
            assertEquals(3, attempts.size());
            assertEquals(1, attempts.stream().filter(a -> a.status() == 500).count());
            assertTrue(attempts.stream().anyMatch(a -> a.attempt() == 2 && a.delivered()));
        }
    }

    @Test
    void testsCanEmitAndSignEventsThemselves() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/sim", WebhookSignature.HEADER, 0)) {
            sim.setWebhookTarget(receiver.uri(), "whsec_test", "sim");
            charge("key-1", BODY);
            receiver.next(); // the automatic charge.succeeded

            WebhookDelivery sent = sim.sendWebhook(WebhookEvent.FAILED, "pay_1");
            WebhookReceiver.Received received = receiver.next();
            assertEquals(sent.eventId(), received.json().get("id").asText());
            assertEquals("failed", received.json().get("data").get("status").asText());

            WebhookDelivery manual = sim.webhookFor(WebhookEvent.SUCCEEDED, "pay_1");
            assertEquals(200, http.client.send(manual.toRequest(receiver.uri()), HttpResponse.BodyHandlers.ofString()).statusCode());
            assertTrue(receiver.next().signedWith("whsec_test"));
            assertThrows(IllegalStateException.class, () -> sim.webhookFor(WebhookEvent.SUCCEEDED, "unknown"));
        }
    }

    // --- helpers --------------------------------------------------------------------------------

    /** Status and charge status of 12 charges and the shape of 12 lookups, each fault at one half. */
    private List<String> answersWithHalfFailing(PspSimulator target) throws Exception {
        target.setFaults(Faults.none().withServerErrorRate(0.5).withNonFinalRate(0.5).withEmptyBodyRate(0.5)
                .withConflictRate(0.5).withMalformedLookupRate(0.5));
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(target.baseUrl() + "/v1/charges"))
                    .header("Idempotency-Key", "seq-" + i)
                    .POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
            HttpResponse<String> answer = http.send(request);
            answers.add(answer.statusCode() + " " + (answer.statusCode() == 200 && !answer.body().isEmpty()
                    ? JSON.readTree(answer.body()).get("status").asText() : ""));
        }
        for (int i = 0; i < 12; i++) {
            HttpResponse<String> lookup = http.send(HttpRequest.newBuilder(URI.create(target.baseUrl() + "/v1/charges?reference=pay_1"))
                    .GET().build());
            answers.add(JSON.readTree(lookup.body()).path("data").isArray() ? "list" : lookup.body());
        }
        assertTrue(Set.copyOf(answers).size() >= 5, answers.toString()); // the dice really vary
        return answers;
    }

    private void awaitLedgerSize(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (sim.ledger().size() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, sim.ledger().size());
    }

    private HttpResponse<String> charge(String key, String body) throws IOException, InterruptedException {
        return http.send(chargeRequest(key, body, Duration.ofSeconds(5)));
    }

    private HttpRequest chargeRequest(String key, String body, Duration timeout) {
        return http.idempotentPost("/v1/charges", key, body, timeout);
    }
}
