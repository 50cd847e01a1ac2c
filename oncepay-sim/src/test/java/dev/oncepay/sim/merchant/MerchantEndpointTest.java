package dev.oncepay.sim.merchant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MerchantEndpointTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "whsec_orders";
    /** The endpoint's clock, fixed so a signature's age is exact whatever second the request arrives in. */
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T10:00:00Z"), ZoneOffset.UTC);

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private MerchantEndpoint merchant;

    @BeforeEach
    void start() {
        merchant = MerchantEndpoint.start(0, Map.of("orders", List.of(SECRET), "refunds", List.of("whsec_refunds")), 42, CLOCK);
    }

    @AfterEach
    void stop() {
        merchant.close();
    }

    @Test
    void aSignedDeliveryIsAcknowledgedRecordedAndApplied() throws Exception {
        HttpResponse<String> answer = deliver("orders", event("pay_1", 2, "succeeded"), List.of(SECRET), now());

        assertEquals(200, answer.statusCode());
        JsonNode received = get("/_merchant/received");
        JsonNode delivery = received.path("deliveries").get(0);
        assertEquals("orders", delivery.path("endpoint").asText());
        assertEquals("evt_pay_1_2", delivery.path("eventId").asText());
        assertEquals("payment.succeeded", delivery.path("type").asText());
        assertEquals("pay_1", delivery.path("objectId").asText());
        assertEquals(2, delivery.path("sequence").asLong());
        assertEquals("succeeded", delivery.path("status").asText());
        assertEquals(200, delivery.path("answer").asInt());
        assertTrue(delivery.path("at").isTextual());
        assertEquals(2, received.path("applied").path("pay_1").path("sequence").asLong());
        assertEquals("evt_pay_1_2", received.path("applied").path("pay_1").path("eventId").asText());
        assertEquals(1, received.path("counts").path("received").asLong());
        assertEquals(1, received.path("counts").path("accepted").asLong());
    }

    @Test
    void aWrongSecretAMissingHeaderOrAnOldTimestampIsRefusedAndNotRecorded() throws Exception {
        String body = event("pay_1", 1, "pending");
        assertEquals(401, deliver("orders", body, List.of("whsec_other"), now()).statusCode());
        assertEquals(401, deliver("orders", body, List.of(SECRET), now() - 301).statusCode());
        assertEquals(401, deliver("orders", body, List.of(SECRET), now() + 301).statusCode());
        assertEquals(401, deliver("refunds", body, List.of(SECRET), now()).statusCode(), "another endpoint's secret");
        assertEquals(401, deliver("unknown", body, List.of(SECRET), now()).statusCode(), "an endpoint without secrets");
        HttpRequest unsigned = HttpRequest.newBuilder(URI.create(merchant.url("orders")))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        assertEquals(401, client.send(unsigned, HttpResponse.BodyHandlers.ofString()).statusCode());
        HttpRequest tampered = signed("orders", body, List.of(SECRET), now())
                .POST(HttpRequest.BodyPublishers.ofString(body.replace("pending", "succeeded"))).build();
        assertEquals(401, client.send(tampered, HttpResponse.BodyHandlers.ofString()).statusCode());

        assertEquals(new MerchantCounts(7, 0, 7, 0, 0, 0, 0), merchant.counts());
        assertTrue(merchant.deliveries().isEmpty());
        assertTrue(merchant.applied().isEmpty());
    }

    @Test
    void aTimestampAtEitherEdgeOfTheToleranceVerifies() throws Exception {
        assertEquals(200, deliver("orders", event("pay_1", 1, "pending"), List.of(SECRET), now() - 300).statusCode());
        assertEquals(200, deliver("orders", event("pay_1", 2, "succeeded"), List.of(SECRET), now() + 300).statusCode());
    }

    @Test
    void duringARotationAnyV1MatchingAnySecretVerifies() throws Exception {
        String body = event("pay_1", 1, "succeeded");
        assertEquals(200, deliver("orders", body, List.of("whsec_next", SECRET), now()).statusCode(), "old secret second");
        merchant.setSecrets("orders", List.of("whsec_next"));
        assertEquals(200, deliver("orders", body, List.of("whsec_next", SECRET), now()).statusCode(), "new secret first");
        assertEquals(401, deliver("orders", body, List.of(SECRET), now()).statusCode(), "the old one alone, once removed");
    }

    @Test
    void itAppliesBySequenceAndCountsDuplicatesStaleAndOutOfOrderApplied() throws Exception {
        deliver("orders", event("pay_1", 2, "succeeded"), List.of(SECRET), now());
        deliver("orders", event("pay_1", 2, "succeeded"), List.of(SECRET), now());
        deliver("orders", event("pay_1", 1, "pending"), List.of(SECRET), now());
        deliver("orders", event("pay_2", 1, "succeeded"), List.of(SECRET), now());
        deliver("orders", event("pay_2", 3, "pending"), List.of(SECRET), now());

        MerchantCounts counts = merchant.counts();
        assertEquals(5, counts.accepted());
        assertEquals(1, counts.duplicates());
        assertEquals(1, counts.stale(), "pay_1's sequence 1 after its 2");
        assertEquals(1, counts.outOfOrderApplied(), "pay_2 went from succeeded to pending");
        assertEquals(2, merchant.applied().get("pay_1").sequence());
        assertEquals("pending", merchant.applied().get("pay_2").status());
    }

    @Test
    void aFailingAnswerIsRecordedButNotApplied() throws Exception {
        post("/_merchant/faults", "{\"failRate\":1,\"failStatus\":503}");

        assertEquals(503, deliver("orders", event("pay_1", 1, "succeeded"), List.of(SECRET), now()).statusCode());

        assertEquals(503, merchant.deliveries().get(0).answer());
        assertTrue(merchant.applied().isEmpty());
        assertEquals(1, merchant.counts().failed());
        assertEquals(0, merchant.counts().accepted());
    }

    @Test
    void aRedirectAnswers302ToElsewhere() throws Exception {
        merchant.setFaults(MerchantFaults.NONE.withRedirect(true));

        HttpResponse<String> answer = deliver("orders", event("pay_1", 1, "succeeded"), List.of(SECRET), now());

        assertEquals(302, answer.statusCode());
        assertEquals("/elsewhere", answer.headers().firstValue("Location").orElseThrow());
        assertTrue(merchant.applied().isEmpty());
    }

    @Test
    void aDarkEndpointWaitsThenAnswers503AndAStallOutlastsTheCallersTimeout() throws Exception {
        merchant.setFaults("orders", MerchantFaults.NONE.withDark(true, 300));
        Instant before = Instant.now();
        assertEquals(503, deliver("orders", event("pay_1", 1, "succeeded"), List.of(SECRET), now()).statusCode());
        assertTrue(Duration.between(before, Instant.now()).toMillis() >= 300);
        assertEquals(200, deliver("refunds", event("pay_1", 1, "succeeded"), List.of("whsec_refunds"), now()).statusCode(),
                "another endpoint keeps everyone's faults");

        merchant.setFaults("orders", MerchantFaults.NONE.withStall(1, 2000));
        HttpRequest impatient = signed("orders", event("pay_2", 1, "succeeded"), List.of(SECRET), now())
                .timeout(Duration.ofMillis(200)).build();
        assertThrows(HttpTimeoutException.class, () -> client.send(impatient, HttpResponse.BodyHandlers.ofString()));
        assertEquals(3, merchant.deliveries().size(), "received even though the caller gave up");
    }

    @Test
    void faultsAreReadAndSetOverHttpAndResetClearsTheRecords() throws Exception {
        JsonNode settings = post("/_merchant/faults", "{\"failRate\":0.2}");
        assertEquals(0.2, settings.path("failRate").asDouble());
        assertEquals(500, settings.path("failStatus").asInt());
        assertFalse(settings.path("dark").asBoolean());
        JsonNode orders = post("/_merchant/faults?endpoint=orders", "{\"dark\":true,\"stallMs\":10}");
        assertTrue(orders.path("dark").asBoolean());
        assertEquals(0.2, orders.path("failRate").asDouble(), "an endpoint's faults start from everyone's");
        assertFalse(get("/_merchant/faults").path("dark").asBoolean());
        assertTrue(get("/_merchant/faults?endpoint=orders").path("dark").asBoolean());
        HttpResponse<String> unknown = client.send(HttpRequest.newBuilder(URI.create(merchant.baseUrl() + "/_merchant/faults"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"failrate\":1}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, unknown.statusCode());

        deliver("orders", event("pay_1", 1, "succeeded"), List.of(SECRET), now());
        post("/_merchant/reset", "");
        JsonNode received = get("/_merchant/received");
        assertEquals(0, received.path("deliveries").size());
        assertEquals(0, received.path("counts").path("received").asLong());
        assertTrue(merchant.faults("orders").dark(), "faults outlive a reset");
    }

    @Test
    void merchantSecretsAreGroupedByEndpointInOrder() {
        assertEquals(Map.of("orders", List.of("a", "b=c"), "refunds", List.of("d")),
                MerchantEndpoint.secrets(List.of("orders=a", "refunds=d", "orders=b=c")));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> MerchantEndpoint.secrets(List.of("orders")));
        assertFalse(refused.getMessage().contains("orders"), "a malformed pair may be a secret: not repeated");
    }

    private static String event(String paymentId, long sequence, String status) {
        String type = switch (status) {
            case "pending" -> "payment.requires_action";
            default -> "payment." + status;
        };
        return "{\"id\":\"evt_" + paymentId + "_" + sequence + "\",\"type\":\"" + type
                + "\",\"createdAt\":\"2026-12-02T10:00:00Z\",\"sequence\":" + sequence + ",\"tenant\":\"merchant-a\","
                + "\"data\":{\"object\":\"payment\",\"id\":\"" + paymentId + "\",\"status\":\"" + status
                + "\",\"amount\":4200,\"currency\":\"EUR\"}}";
    }

    private static long now() {
        return CLOCK.instant().getEpochSecond();
    }

    private HttpRequest.Builder signed(String endpoint, String body, List<String> secrets, long t) {
        return HttpRequest.newBuilder(URI.create(merchant.url(endpoint)))
                .header("Content-Type", "application/json")
                .header(MerchantSignature.HEADER, MerchantSignature.header(secrets, body, t))
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private HttpResponse<String> deliver(String endpoint, String body, List<String> secrets, long t)
            throws IOException, InterruptedException {
        return client.send(signed(endpoint, body, secrets, t).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(merchant.baseUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        return JSON.readTree(answer.body());
    }

    private JsonNode post(String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(merchant.baseUrl() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        return JSON.readTree(answer.body());
    }
}
