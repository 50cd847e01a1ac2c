package dev.oncepay.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.provider.policy.FleetBreakers;
import dev.oncepay.reconcile.SweepSummary;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.testing.DirectInvoker;
import dev.oncepay.testing.DirectSweep;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Shared set-up of the operator API tests: a tenant of the test's own, payments made through the
 * charge function and the simulator, the operator's requests through the charge function.
 */
abstract class AdminTestSupport {
    static final String OPERATOR = "arn:aws:sts::123456789012:assumed-role/oncepay-operator/on-call";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    TestClock clock;
    @Inject
    DynamoRequestCounter dynamoRequests;
    @Inject
    FleetBreakers breakers;
    @Inject
    PhaseHooks hooks;
    @Inject
    DirectInvoker direct;
    @Inject
    DirectSweep sweeps;

    PspSimulator sim;
    String tenant;

    @BeforeEach
    void cleanSlate() {
        sim = TestEnvironment.simulator();
        sim.reset();
        clock.reset();
        hooks.reset();
        breakers.resetAll();
        dynamoRequests.reset();
        tenant = "merchant-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void restore() {
        hooks.reset();
        sim.setFaults(Faults.none());
        clock.reset();
    }

    // --- the merchant's side ----------------------------------------------------------------------

    static String body(long amount, String reference) {
        return "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"" + reference + "\"}";
    }

    ApiResponse post(String key, String body) {
        return LambdaClient.call(HttpApiEvents.postPayment(tenant, key, body));
    }

    ApiResponse publicGet(String paymentId) {
        return LambdaClient.call(HttpApiEvents.getPayment(tenant, paymentId));
    }

    /**
     * A payment whose charge the provider executed but whose answer never came back: {@code 202},
     * UNKNOWN, one charge in the ledger. Returns its id.
     */
    String unknownPayment(String key, String reference) {
        return unknownPayment(key, reference, false);
    }

    /** The same, the provider having declined the charge it executed if {@code declined}. */
    String unknownPayment(String key, String reference, boolean declined) {
        breakers.resetAll(); // each timeout counts towards the charge breaker; these are set-up, not an outage
        sim.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(2500)
                .withDeclineRate(declined ? 1.0 : 0.0));
        ApiResponse response = post(key, body(4200, reference));
        sim.setFaults(Faults.none());
        assertEquals(202, response.status(), response::toString);
        return response.json().path("id").asText();
    }

    /**
     * A payment whose charge the provider answered {@code 5xx} to without executing it: {@code 202},
     * UNKNOWN, nothing in the ledger (oncepay cannot know that). Returns its id.
     */
    String unknownPaymentNotCharged(String key, String reference, long amount) {
        breakers.resetAll();
        sim.setFaults(Faults.none().withServerErrorRate(1.0));
        ApiResponse response = post(key, body(amount, reference));
        sim.setFaults(Faults.none());
        breakers.resetAll(); // its 5xx answers count towards the breaker; set-up, not an outage
        assertEquals(202, response.status(), response::toString);
        return response.json().path("id").asText();
    }

    /** The id of the one charge the provider executed for the payment. */
    String chargeOf(String paymentId) {
        return sim.ledger().stream().filter(e -> e.reference().equals(paymentId)).findFirst().orElseThrow().id();
    }

    /** A second charge for the payment at the provider, under another provider key (what a human might fix). */
    String secondChargeAtProvider(String paymentId) {
        return chargeAtProvider(paymentId, 4200, "EUR");
    }

    /** A succeeded charge at the provider carrying the payment's id as its reference, made by hand. */
    String chargeAtProvider(String paymentId, long amount, String currency) {
        try {
            String body = JSON.writeValueAsString(Map.of("amount", amount, "currency", currency, "reference", paymentId,
                    "description", "charged again by hand"));
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/v1/charges"))
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", "by-hand-" + paymentId + "-" + amount + currency)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            return JSON.readTree(response.body()).path("id").asText();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * One run of the reconcile sweep (its function's entry method, with a scheduled event) over
     * these payments alone, once their first check is due: other tests' leftovers are taken out of
     * the sweep index first, as the reconcile tests do.
     */
    SweepSummary sweepOnly(Set<String> paymentIds) {
        clock.advance(Duration.ofSeconds(31)); // past the first check (oncepay.sweep.first-check-delay)
        return sweeps.sweepOnly(paymentIds);
    }

    // --- the operator's side ----------------------------------------------------------------------

    ApiResponse admin(String method, String pathAndQuery) {
        return LambdaClient.call(HttpApiEvents.admin(method, pathAndQuery).operator(OPERATOR));
    }

    ApiResponse detail(String paymentId) {
        return admin("GET", "/admin/payments/" + paymentId);
    }

    static HttpApiEvents resolution(String paymentId, String key, String body) {
        HttpApiEvents event = HttpApiEvents.admin("POST", "/admin/payments/" + paymentId + "/resolve").operator(OPERATOR)
                .body(body);
        return key == null ? event : event.header("idempotency-key", key);
    }

    ApiResponse resolve(String paymentId, String key, String body) {
        return LambdaClient.call(resolution(paymentId, key, body));
    }

    static String succeeded(String chargeId, String reason, boolean override) {
        return "{\"status\":\"succeeded\",\"providerPaymentId\":\"" + chargeId + "\",\"reason\":\"" + reason
                + "\",\"override\":" + override + "}";
    }

    static long operatorMoves(JsonNode history) {
        return history.findValues("kind").stream().filter(k -> k.asText().equals("operator")).count();
    }

    static String failed(String reason, boolean override) {
        return "{\"status\":\"failed\",\"reason\":\"" + reason + "\",\"override\":" + override + "}";
    }

    static String operatorKey(String key) {
        return new IdempotencyKey(IdempotencyKey.OPERATOR_SCOPE, key).storageId();
    }

    static Map<String, String> stored(String paymentId) {
        return StoredItems.paymentItem(paymentId).orElseThrow().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().toString()));
    }
}
