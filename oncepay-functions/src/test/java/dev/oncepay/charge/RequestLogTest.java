package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Metrics;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.function.ReconcileFunction;
import dev.oncepay.reconcile.ScheduledEvent;
import dev.oncepay.sim.Faults;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testkit.StoreFaults;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.function.WebhookFunction;
import dev.oncepay.webhook.WebhookRequests;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What each invocation leaves for on-call: exactly one INFO line as JSON with its fields (never
 * the raw key, an API key or a webhook secret, at any level), the answers counted by function and
 * status (a 503 by its cause), replays counted, and each provider call timed by outcome.
 */
@QuarkusTest
@TestProfile(JsonLogProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class RequestLogTest extends ChargeTestSupport {
    /** Strict: a line with anything after its one JSON object fails to parse. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");
    private static final String REQUEST_LOGGER = "dev.oncepay.http.RequestLog";
    private static final Set<String> HTTP_FIELDS = Set.of("function", "requestId", "tenant", "paymentId", "keyHash",
            "method", "route", "status", "problemType", "replayed", "latencyMs");
    private static final String SIM_API_KEY = "local-sim-key";
    private static final String SIM_WEBHOOK_SECRET = "local-sim-secret";

    @Inject
    RecordingMetrics metrics;
    @Inject
    WebhookFunction webhookFunction;
    @Inject
    ReconcileFunction reconcileFunction;
    @ConfigProperty(name = "oncepay.provider.breaker-cache")
    Duration breakerCache;

    @AfterEach
    void healthyStore() {
        TestEnvironment.storeProxy().reset();
    }

    @Test
    void everyInvocationLeavesExactlyOneJsonLineWithItsFieldsAndNoSecret() throws Exception {
        String key = "order-7781-retry-" + UUID.randomUUID(); // what a merchant might put in a key
        String body = body(4200, "EUR", "order_7781");

        HttpApiEvents first = HttpApiEvents.postPayment(tenant, key, body);
        ApiResponse created = LambdaClient.call(first);
        assertEquals(201, created.status(), created.body());
        String paymentId = created.json().get("id").asText();
        HttpApiEvents again = HttpApiEvents.postPayment(tenant, key, body);
        assertEquals(201, LambdaClient.call(again).status());
        HttpApiEvents show = HttpApiEvents.getPayment(tenant, paymentId);
        assertEquals(200, LambdaClient.call(show).status());
        HttpApiEvents invalid = HttpApiEvents.postPayment(tenant, key + "-2", "{\"amount\":-1}");
        assertEquals(400, LambdaClient.call(invalid).status());

        String eventBody = WebhookRequests.chargeEvent(WebhookRequests.newEventId(), "charge.succeeded", paymentId,
                created.json().get("providerPaymentId").asText(), 4200, "EUR");
        String signed = WebhookRequests.event("sim", eventBody, WebhookRequests.signNow(SIM_WEBHOOK_SECRET, eventBody));
        assertEquals(200, webhookFunction.webhook(JSON.readValue(signed, HttpApiEvent.class)).statusCode());
        String forged = WebhookRequests.event("sim", eventBody, WebhookRequests.signNow("not-the-secret", eventBody));
        assertEquals(401, webhookFunction.webhook(JSON.readValue(forged, HttpApiEvent.class)).statusCode());
        String operatorKey = "resolve-" + key; // an operator's key, hashed in the operator scope, not a tenant's
        HttpApiEvents resolve = HttpApiEvents.admin("POST", "/admin/payments/" + paymentId + "/resolve")
                .operator("alice").header("Idempotency-Key", operatorKey)
                .body("{\"status\":\"failed\",\"reason\":\"a test\"}");
        assertEquals(409, LambdaClient.call(resolve).status(), "a succeeded payment is not resolved");
        String sweepId = "scheduled-" + UUID.randomUUID();
        reconcileFunction.reconcile(new ScheduledEvent("0", sweepId, "Scheduled Event", "aws.events", "123456789012",
                null, "eu-central-1", List.of(), Map.of()));

        List<JsonNode> lines = logLines();
        JsonNode createdLine = onlyLineOf(lines, requestIdOf(first.json()));
        Set<String> expected = new HashSet<>(HTTP_FIELDS);
        expected.remove("problemType"); // not a problem
        expected.add("AWSRequestId"); // the Lambda runtime's, beside API Gateway's requestId
        assertEquals(expected, fieldsOf(createdLine), createdLine::toString);
        assertEquals("INFO", createdLine.get("level").asText());
        JsonNode mdc = createdLine.get("mdc");
        assertEquals("charge", mdc.get("function").asText());
        assertEquals(tenant, mdc.get("tenant").asText());
        assertEquals(paymentId, mdc.get("paymentId").asText());
        assertEquals(keyHash(tenant, key), mdc.get("keyHash").asText());
        assertEquals("POST", mdc.get("method").asText());
        assertEquals("/payments", mdc.get("route").asText());
        assertEquals("201", mdc.get("status").asText());
        assertEquals("false", mdc.get("replayed").asText());
        assertTrue(Long.parseLong(mdc.get("latencyMs").asText()) >= 0);

        JsonNode replayLine = onlyLineOf(lines, requestIdOf(again.json())).get("mdc");
        assertEquals("true", replayLine.get("replayed").asText());
        assertEquals(keyHash(tenant, key), replayLine.get("keyHash").asText(), "one key, one hash: lines correlate");
        JsonNode showLine = onlyLineOf(lines, requestIdOf(show.json())).get("mdc");
        assertEquals(paymentId, showLine.get("paymentId").asText());
        assertEquals("/payments/{id}", showLine.get("route").asText());
        assertFalse(showLine.has("keyHash"), "no key, no hash");
        JsonNode invalidLine = onlyLineOf(lines, requestIdOf(invalid.json())).get("mdc");
        assertEquals("400", invalidLine.get("status").asText());
        assertEquals("invalid-request", invalidLine.get("problemType").asText());
        JsonNode resolveLine = onlyLineOf(lines, requestIdOf(resolve.json())).get("mdc");
        assertEquals(keyHash(IdempotencyKey.OPERATOR_SCOPE, operatorKey), resolveLine.get("keyHash").asText(),
                "the operator key's own stored hash");
        assertEquals("resolution-not-allowed", resolveLine.get("problemType").asText());
        JsonNode webhookLine = onlyLineOf(lines, requestIdOf(signed)).get("mdc");
        assertEquals("webhook", webhookLine.get("function").asText());
        assertEquals(paymentId, webhookLine.get("paymentId").asText(), "the payment the verified event is about");
        assertEquals("/webhooks/{provider}", webhookLine.get("route").asText());
        JsonNode forgedLine = onlyLineOf(lines, requestIdOf(forged)).get("mdc");
        assertEquals("invalid-signature", forgedLine.get("problemType").asText());
        assertFalse(forgedLine.has("paymentId"), "an unverified event names no payment");
        List<JsonNode> sweepLines = lines.stream().filter(l -> isRequestLine(l)
                && "reconcile".equals(mdcText(l, "function")) && l.get("message").asText().contains(sweepId)).toList();
        assertEquals(1, sweepLines.size(), "one line per sweep, with its summary: " + sweepLines);
        assertNotNull(mdcText(sweepLines.get(0), "latencyMs"));

        assertTrue(lines.stream().anyMatch(l -> "DEBUG".equals(l.path("level").asText())),
                "the file holds DEBUG lines too, so the checks below cover every level");
        String everything = Files.readString(Path.of(JsonLogProfile.LOG_FILE), StandardCharsets.UTF_8);
        assertFalse(everything.contains(key), "the raw Idempotency-Key appears nowhere in the log");
        assertFalse(everything.contains(SIM_API_KEY), "nor the provider API key");
        assertFalse(everything.contains(SIM_WEBHOOK_SECRET), "nor the webhook secret");
    }

    @Test
    void anInvocationThatFailsLeavesItsLineWithTheErrorAndCountsNoAnswer() throws Exception {
        metrics.reset();
        hooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        HttpApiEvents crashing = HttpApiEvents.postPayment(tenant, newKey(), body(900, "EUR", "order_crash"));

        assertEquals(-1, LambdaClient.call(crashing).status(), "the invocation failed, as in a crash");

        JsonNode line = onlyLineOf(logLines(), requestIdOf(crashing.json())).get("mdc");
        assertEquals(PhaseHooks.SimulatedCrash.class.getName(), line.get("error").asText());
        assertFalse(line.has("status"), "no answer: API Gateway answers for the function");
        assertEquals(0, metrics.counted(Metrics.ANSWERS));
    }

    @Test
    void answersAreCountedByFunctionAndStatusAndA503ByItsCause() throws Exception {
        metrics.reset();
        String key = newKey();
        String body = body(1500, "EUR", "order_counted");
        assertEquals(201, post(key, body).status());
        assertEquals(201, post(key, body).status());
        assertEquals(422, post(key, body(1600, "EUR", "order_counted")).status());
        assertEquals(400, post(newKey(), "{}").status());
        assertEquals(401, LambdaClient.call(HttpApiEvents.postPayment(null, newKey(), body)).status());
        assertEquals(404, get("pay_00000000000000000000000000000000").status());

        TestEnvironment.storeProxy().set(StoreFaults.none().withOutage(true));
        assertEquals(503, post(newKey(), body).status());
        TestEnvironment.storeProxy().reset();

        Runnable endSlowCalls = breakers.fillFromOtherSandboxes(ACCOUNT, ProviderOperation.CHARGE);
        breakers.readAgainHere();
        try {
            assertEquals(503, post(newKey(), body).status());
        } finally {
            endSlowCalls.run();
        }
        breakers.readAgainHere();
        breakers.openFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        clock.advance(breakerCache);
        assertEquals(503, post(newKey(), body).status());

        for (Map.Entry<String, Integer> expected : Map.of("201", 2, "422", 1, "400", 1, "401", 1, "404", 1,
                "503-store-unavailable", 1, "503-provider-at-capacity", 1, "503-provider-unavailable", 1).entrySet()) {
            assertEquals(expected.getValue(), metrics.counted(Metrics.ANSWERS, answer(expected.getKey())),
                    "Answers with Status " + expected.getKey());
        }
        assertEquals(9, metrics.counted(Metrics.ANSWERS), "each answer once, under one status");
        assertEquals(1, metrics.counted(Metrics.REPLAYS, Map.of(Metrics.DIM_FUNCTION, "charge")));
    }

    @Test
    void providerCallsAreTimedByOutcomeAndTheirRetriesCounted() {
        metrics.reset();
        sim.scriptChargeAnswers(503);
        assertEquals(201, post(newKey(), body(700, "EUR", "order_retried")).status());
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        assertEquals(402, post(newKey(), body(800, "EUR", "order_declined")).status());

        List<Double> succeeded = metrics.values(Metrics.PROVIDER_LATENCY, call("SUCCEEDED"));
        List<Double> failed = metrics.values(Metrics.PROVIDER_LATENCY, call("FAILED"));
        assertEquals(1, succeeded.size(), "one whole call, its retry included");
        assertEquals(1, failed.size());
        assertTrue(succeeded.get(0) > 0 && failed.get(0) > 0);
        assertEquals(1, metrics.counted(Metrics.PROVIDER_RETRIES, Map.of(Metrics.DIM_OPERATION, "charge")),
                "the 503 was retried once");
        assertEquals(Set.of("Milliseconds"), Set.copyOf(metrics.samples(Metrics.PROVIDER_LATENCY).stream()
                .map(RecordingMetrics.Sample::unit).toList()));
    }

    private static Map<String, String> answer(String status) {
        return Map.of(Metrics.DIM_FUNCTION, "charge", Metrics.DIM_STATUS, status);
    }

    private static Map<String, String> call(String outcome) {
        return Map.of(Metrics.DIM_OPERATION, "charge", Metrics.DIM_OUTCOME, outcome);
    }

    private static List<JsonNode> logLines() throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(JsonLogProfile.LOG_FILE), StandardCharsets.UTF_8)) {
            lines.add(JSON.readTree(line)); // every line is one JSON object
        }
        return lines;
    }

    private static JsonNode onlyLineOf(List<JsonNode> lines, String requestId) {
        List<JsonNode> mine = lines.stream().filter(l -> isRequestLine(l) && requestId.equals(mdcText(l, "requestId")))
                .toList();
        assertEquals(1, mine.size(), () -> "request " + requestId + ": " + mine);
        return mine.get(0);
    }

    private static boolean isRequestLine(JsonNode line) {
        return REQUEST_LOGGER.equals(line.path("loggerName").asText()) && "INFO".equals(line.path("level").asText());
    }

    private static String mdcText(JsonNode line, String field) {
        return line.path("mdc").path(field).asText(null);
    }

    private static Set<String> fieldsOf(JsonNode line) {
        Set<String> names = new HashSet<>();
        line.get("mdc").fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String requestIdOf(String eventJson) throws IOException {
        return JSON.readTree(eventJson).at("/requestContext/requestId").asText();
    }

    private static String keyHash(String tenant, String key) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest((tenant + '\u0000' + key).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest).substring(0, 16);
    }
}
