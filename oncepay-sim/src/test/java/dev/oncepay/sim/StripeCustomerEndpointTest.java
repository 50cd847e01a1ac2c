package dev.oncepay.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The customer finishing 3-D Secure over HTTP ({@code /_sim/stripe/authenticate}), as the drill does it. */
class StripeCustomerEndpointTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
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
    void approvedAuthenticationChargesOnceAndOnlyOnce() throws Exception {
        String id = awaitingCustomer("pay_1");

        HttpResponse<String> approved = authenticate("{\"reference\":\"pay_1\",\"approved\":true}");
        assertEquals(200, approved.statusCode(), approved.body());
        assertEquals(id, JSON.readTree(approved.body()).get("paymentIntent").asText());
        assertEquals("succeeded", intent(id).get("status").asText());
        assertEquals(1, sim.ledger().size());
        assertEquals("succeeded", sim.ledger().get(0).status());

        HttpResponse<String> again = authenticate("{\"reference\":\"pay_1\",\"approved\":true}");
        assertEquals(409, again.statusCode(), "no longer waiting for the customer: " + again.body());
        assertEquals(1, sim.ledger().size(), "a second authentication charges nothing");
    }

    @Test
    void refusedAuthenticationLeavesThePaymentUnchargedAndFailed() throws Exception {
        String id = awaitingCustomer("pay_2");

        assertEquals(200, authenticate("{\"reference\":\"pay_2\",\"approved\":false}").statusCode());
        JsonNode intent = intent(id);
        assertEquals("requires_payment_method", intent.get("status").asText());
        assertEquals("payment_intent_authentication_failure", intent.get("last_payment_error").get("code").asText());
        assertTrue(sim.ledger().stream().noneMatch(c -> c.status().equals("succeeded")), "nothing captured: " + sim.ledger());
    }

    @Test
    void unknownPaymentsAndBadRequestsChangeNothing() throws Exception {
        String id = awaitingCustomer("pay_3");

        assertEquals(404, authenticate("{\"reference\":\"pay_nope\",\"approved\":true}").statusCode());
        assertEquals(400, authenticate("{\"reference\":\"pay_3\"}").statusCode(), "approved is required");
        assertEquals(400, authenticate("{\"reference\":\"pay_3\",\"approved\":\"yes\"}").statusCode());
        assertEquals(400, authenticate("{\"approved\":true}").statusCode(), "reference is required");
        assertEquals(400, authenticate("not json").statusCode());
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(URI.create(sim.baseUrl()
                + StripeCustomerEndpoint.PATH)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode());
        assertEquals("requires_action", intent(id).get("status").asText());
        assertTrue(sim.ledger().isEmpty());
    }

    /** A PaymentIntent for {@code reference} created with {@code pm_card_authenticationRequired}. */
    private String awaitingCustomer(String reference) throws Exception {
        HttpResponse<String> created = client.send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/v1/payment_intents"))
                .header("Authorization", "Bearer sk_test_customer")
                .header("Idempotency-Key", "key-" + reference)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("amount=4200&currency=eur"
                        + "&payment_method=pm_card_authenticationRequired&confirm=true"
                        + "&metadata%5Boncepay_payment_id%5D=" + reference))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, created.statusCode(), created.body());
        JsonNode intent = JSON.readTree(created.body());
        assertEquals("requires_action", intent.get("status").asText());
        assertTrue(sim.ledger().isEmpty());
        return intent.get("id").asText();
    }

    private JsonNode intent(String id) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/v1/payment_intents/" + id))
                .header("Authorization", "Bearer sk_test_customer").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    private HttpResponse<String> authenticate(String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + StripeCustomerEndpoint.PATH))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
