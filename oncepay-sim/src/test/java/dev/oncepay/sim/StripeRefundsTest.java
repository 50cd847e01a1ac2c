package dev.oncepay.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Drives the simulator's Stripe refunds through real HTTP, as the Stripe adapter will. */
class StripeRefundsTest {

    private static final String API_KEY = "sk_test_simulator";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private PspSimulator sim;
    private SimHttp http;

    @BeforeEach
    void start() {
        sim = PspSimulator.start(0);
        http = new SimHttp(() -> sim);
    }

    @AfterEach
    void stop() {
        sim.close();
    }

    @Test
    void aRefundIsStripesRefundObjectInTheLedgerAndReplaysPerKey() throws Exception {
        JsonNode intent = paid(4200, "pay_1");
        String form = "payment_intent=" + intent.get("id").asText() + "&amount=1500&reason=requested_by_customer"
                + "&metadata%5Boncepay_refund_id%5D=rf_1";

        HttpResponse<String> response = refund("rk-1", form);

        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("Request-Id").orElseThrow().startsWith("req_"));
        assertTrue(response.headers().firstValue("Idempotent-Replayed").isEmpty());
        JsonNode refund = JSON.readTree(response.body());
        assertTrue(refund.get("id").asText().startsWith("re_"));
        assertEquals("refund", refund.get("object").asText());
        assertEquals(1500, refund.get("amount").asLong());
        assertTrue(refund.get("balance_transaction").asText().startsWith("txn_"));
        assertEquals(intent.get("latest_charge").asText(), refund.get("charge").asText());
        assertTrue(refund.get("created").asLong() > 0);
        assertEquals("eur", refund.get("currency").asText());
        assertEquals("card", refund.get("destination_details").get("type").asText());
        assertEquals("rf_1", refund.get("metadata").get("oncepay_refund_id").asText());
        assertEquals(intent.get("id").asText(), refund.get("payment_intent").asText());
        assertEquals("requested_by_customer", refund.get("reason").asText());
        assertTrue(refund.get("receipt_number").isNull());
        assertTrue(refund.get("source_transfer_reversal").isNull());
        assertEquals("succeeded", refund.get("status").asText());
        assertTrue(refund.get("transfer_reversal").isNull());
        assertFalse(refund.has("failure_reason"));

        HttpResponse<String> replay = refund("rk-1", "metadata%5Boncepay_refund_id%5D=rf_1&reason=requested_by_customer"
                + "&amount=1500&payment_intent=" + intent.get("id").asText());
        assertEquals(200, replay.statusCode());
        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(response.body(), replay.body());

        HttpResponse<String> other = refund("rk-1", form.replace("1500", "1600"));
        assertEquals(400, other.statusCode());
        assertEquals("idempotency_error", errorField(other, "type"));
        assertEquals("false", other.headers().firstValue("Stripe-Should-Retry").orElseThrow());

        JsonNode ledger = JSON.readTree(http.get("/_sim/ledger").body()).get("refunds");
        assertEquals(1, ledger.size());
        assertEquals(refund.get("id").asText(), ledger.get(0).get("id").asText());
        assertEquals(refund.get("charge").asText(), ledger.get(0).get("charge").asText());
        assertEquals(1500, ledger.get(0).get("amount").asLong());
        assertEquals("EUR", ledger.get(0).get("currency").asText());
        assertEquals("succeeded", ledger.get(0).get("status").asText());
        assertEquals("rf_1", ledger.get(0).get("reference").asText());
        assertEquals("rk-1", ledger.get(0).get("idempotencyKey").asText());
    }

    @Test
    void withoutAnAmountTheRestIsRefundedThenNothingIsLeft() throws Exception {
        String id = paid(1000, "pay_1").get("id").asText();
        assertEquals(200, refund("rk-1", "payment_intent=" + id + "&amount=300").statusCode());

        JsonNode rest = JSON.readTree(refund("rk-2", "payment_intent=" + id).body());
        HttpResponse<String> again = refund("rk-3", "payment_intent=" + id);

        assertEquals(700, rest.get("amount").asLong());
        assertTrue(rest.get("reason").isNull());
        assertEquals(400, again.statusCode());
        assertEquals("invalid_request_error", errorField(again, "type"));
        assertEquals("charge_already_refunded", errorField(again, "code"));
        // A refusal that reached execution is stored for its key, as Stripe stores it.
        HttpResponse<String> replayed = refund("rk-3", "payment_intent=" + id);
        assertEquals(again.body(), replayed.body());
        assertEquals("true", replayed.headers().firstValue("Idempotent-Replayed").orElseThrow());
    }

    @Test
    void overRefundsUnknownAndUnpaidIntentsAndBadFormsAreRefused() throws Exception {
        String id = paid(1000, "pay_1").get("id").asText();
        String unpaid = JSON.readTree(createIntent("pk-2", 1000, "pay_2", "pm_card_authenticationRequired").body())
                .get("id").asText();

        HttpResponse<String> tooLarge = refund("rk-1", "payment_intent=" + id + "&amount=1001");
        HttpResponse<String> unknown = refund("rk-2", "payment_intent=pi_unknown");
        HttpResponse<String> notSucceeded = refund("rk-3", "payment_intent=" + unpaid);

        assertEquals(400, tooLarge.statusCode());
        assertEquals("amount_too_large", errorField(tooLarge, "code"));
        assertEquals("amount", errorField(tooLarge, "param"));
        assertEquals("Refund amount (€10.01) is greater than unrefunded amount on charge (€10.00)",
                errorField(tooLarge, "message"));
        assertEquals(404, unknown.statusCode());
        assertEquals("resource_missing", errorField(unknown, "code"));
        assertEquals("payment_intent", errorField(unknown, "param"));
        assertEquals(400, notSucceeded.statusCode());
        assertEquals("payment_intent_unexpected_state", errorField(notSucceeded, "code"));
        assertEquals("requires_action",
                JSON.readTree(notSucceeded.body()).get("error").get("payment_intent").get("status").asText());
        Map<String, String> invalid = Map.of(
                "amount=10", "parameter_missing",
                "payment_intent=" + id + "&amount=0", "parameter_invalid_integer",
                "payment_intent=" + id + "&amount=1.5", "parameter_invalid_integer",
                "payment_intent=" + id + "&reason=changed_mind", "parameter_invalid_string",
                "payment_intent=" + id + "&refund_application_fee=true", "parameter_unknown");
        for (Map.Entry<String, String> form : invalid.entrySet()) {
            HttpResponse<String> refused = refund("bad-" + form.getKey().hashCode(), form.getKey());
            assertEquals(400, refused.statusCode(), form.getKey());
            assertEquals(form.getValue(), errorField(refused, "code"), form.getKey());
        }
        assertTrue(sim.refunds().isEmpty());
    }

    @Test
    void twentyConcurrentRefundsOfTenOnAnIntentOf100AcceptExactlyTen() throws Exception {
        String id = paid(100, "pay_1").get("id").asText();
        List<HttpRequest> refunds = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            refunds.add(refundRequest("rk-" + i, "payment_intent=" + id + "&amount=10"));
        }

        Map<Integer, Long> statuses = http.releasedAtOnce(refunds);
        assertEquals(Map.of(200, 10L, 400, 10L), statuses);
        assertEquals(10, sim.refunds().size());
        assertEquals(100, sim.refunds().stream().mapToLong(Refund::amount).sum());
    }

    @Test
    void aPendingRefundSucceedsLaterWithItsEvents() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/stripe", "Stripe-Signature", 0)) {
            sim.stripe().setWebhookTarget(receiver.uri(), "whsec_test");
            String id = paid(1000, "pay_1").get("id").asText();
            assertEquals("payment_intent.succeeded", receiver.next().json().get("type").asText());
            sim.setFaults(Faults.none().withNonFinalRate(1.0).withRefundSettleMs(300));

            JsonNode refund = JSON.readTree(refund("rk-1", "payment_intent=" + id + "&amount=400"
                    + "&metadata%5Boncepay_refund_id%5D=rf_1").body());

            assertEquals("pending", refund.get("status").asText());
            assertEquals("processing", refund.get("pending_reason").asText());
            WebhookReceiver.Received created = receiver.next();
            assertTrue(created.signedWith("whsec_test"));
            JsonNode createdEvent = created.json();
            assertEquals("refund.created", createdEvent.get("type").asText());
            assertEquals("event", createdEvent.get("object").asText());
            assertEquals("rk-1", createdEvent.get("request").get("idempotency_key").asText());
            assertEquals("pending", createdEvent.get("data").get("object").get("status").asText());
            assertEquals("rf_1", createdEvent.get("data").get("object").get("metadata").get("oncepay_refund_id").asText());

            Map<String, JsonNode> settled = nextEvents(receiver, 2);
            assertEquals(Set.of("refund.updated", "charge.refunded"), settled.keySet());
            JsonNode updated = settled.get("refund.updated");
            assertEquals("succeeded", updated.get("data").get("object").get("status").asText());
            assertEquals("pending", updated.get("data").get("previous_attributes").get("status").asText());
            JsonNode chargeRefunded = settled.get("charge.refunded");
            JsonNode charge = chargeRefunded.get("data").get("object");
            assertEquals("charge", charge.get("object").asText());
            assertEquals(refund.get("charge").asText(), charge.get("id").asText());
            assertEquals(400, charge.get("amount_refunded").asLong());
            assertFalse(charge.get("refunded").asBoolean());
            assertEquals(id, charge.get("payment_intent").asText());
            assertEquals("succeeded", JSON.readTree(get("/v1/refunds/" + refund.get("id").asText()).body())
                    .get("status").asText());
            assertEquals("succeeded", sim.refunds().get(0).status().wire());
        }
    }

    @Test
    void aPendingRefundThatFailsGivesItsAmountBackWithItsEvents() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/stripe", "Stripe-Signature", 0)) {
            sim.stripe().setWebhookTarget(receiver.uri(), "whsec_test");
            String id = paid(1000, "pay_1").get("id").asText();
            receiver.next();
            sim.setFaults(Faults.none().withNonFinalRate(1.0).withRefundFailRate(1.0).withRefundSettleMs(300));

            JsonNode refund = JSON.readTree(refund("rk-1", "payment_intent=" + id).body());
            // While pending, it holds the whole amount.
            assertEquals("charge_already_refunded",
                    errorField(refund("rk-2", "payment_intent=" + id + "&amount=1"), "code"));

            assertEquals("pending", refund.get("status").asText());
            assertEquals("refund.created", receiver.next().json().get("type").asText());
            Map<String, JsonNode> settled = nextEvents(receiver, 2);
            assertEquals(Set.of("refund.updated", "refund.failed"), settled.keySet());
            JsonNode updated = settled.get("refund.updated");
            assertEquals("failed", updated.get("data").get("object").get("status").asText());
            JsonNode failed = settled.get("refund.failed");
            JsonNode object = failed.get("data").get("object");
            assertEquals("expired_or_canceled_card", object.get("failure_reason").asText());
            assertTrue(object.get("failure_balance_transaction").asText().startsWith("txn_"));
            assertEquals("failed", sim.refunds().get(0).status().wire());

            sim.setFaults(Faults.none());
            assertEquals(200, refund("rk-3", "payment_intent=" + id).statusCode()); // the amount is back
        }
    }

    @Test
    void lookupsByIdAndByPaymentIntentListNewestFirstAfterTheLag() throws Exception {
        String id = paid(1000, "pay_1").get("id").asText();
        String first = JSON.readTree(refund("rk-1", "payment_intent=" + id + "&amount=100").body()).get("id").asText();
        String second = JSON.readTree(refund("rk-2", "payment_intent=" + id + "&amount=200").body()).get("id").asText();

        JsonNode byId = JSON.readTree(get("/v1/refunds/" + first).body());
        JsonNode list = JSON.readTree(get("/v1/refunds?payment_intent=" + id).body());
        JsonNode limited = JSON.readTree(get("/v1/refunds?payment_intent=" + id + "&limit=1").body());
        HttpResponse<String> unknown = get("/v1/refunds/re_unknown");
        HttpResponse<String> unknownIntent = get("/v1/refunds?payment_intent=pi_unknown");

        assertEquals(100, byId.get("amount").asLong());
        assertEquals("list", list.get("object").asText());
        assertEquals("/v1/refunds", list.get("url").asText());
        assertFalse(list.get("has_more").asBoolean());
        assertEquals(List.of(second, first), List.of(list.get("data").get(0).get("id").asText(),
                list.get("data").get(1).get("id").asText()));
        assertEquals(1, limited.get("data").size());
        assertTrue(limited.get("has_more").asBoolean());
        assertEquals(404, unknown.statusCode());
        assertEquals("resource_missing", errorField(unknown, "code"));
        assertEquals(404, unknownIntent.statusCode());
        assertEquals(5, JSON.readTree(http.get("/_sim/stats").body()).get("providers").get("stripe")
                .get("refundLookupRequests").asInt());

        sim.setFaults(Faults.none().withLookupLagMs(60_000));
        assertEquals(0, JSON.readTree(get("/v1/refunds?payment_intent=" + id).body()).get("data").size());
        assertEquals(100, JSON.readTree(get("/v1/refunds/" + first).body()).get("amount").asLong());
    }

    @Test
    void theCreatesFaultsApplyToRefundCreates() throws Exception {
        String id = paid(1000, "pay_1").get("id").asText();
        String form = "payment_intent=" + id + "&amount=100";

        sim.setFaults(Faults.none().withServerErrorRate(1.0).withServerErrorRetryAfterSeconds(2));
        HttpResponse<String> serverError = refund("rk-1", form);
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(3));
        HttpResponse<String> rateLimited = refund("rk-1", form);
        sim.setFaults(Faults.none().withOutage(true));
        HttpResponse<String> outage = refund("rk-1", form);
        sim.setFaults(Faults.none().withResetRate(1.0));
        assertThrows(IOException.class, () -> refund("rk-1", form));
        assertTrue(sim.refunds().isEmpty());

        sim.setFaults(Faults.none().withConflictRate(1.0));
        HttpResponse<String> conflict = refund("rk-1", form);
        sim.setFaults(Faults.none().withEmptyBodyRate(1.0));
        HttpResponse<String> empty = refund("rk-2", form);
        sim.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(5000));
        assertThrows(HttpTimeoutException.class, () -> client.send(HttpRequest.newBuilder(http.uri("/v1/refunds"))
                .timeout(Duration.ofMillis(300)).header("Authorization", "Bearer " + API_KEY)
                .header("Idempotency-Key", "rk-3").header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString()));
        sim.setFaults(Faults.none());
        HttpResponse<String> replayed = refund("rk-1", form);

        assertTrue(serverError.statusCode() == 500 || serverError.statusCode() == 502, serverError.body());
        assertEquals("api_error", errorField(serverError, "type"));
        assertEquals("2", serverError.headers().firstValue("Retry-After").orElseThrow());
        assertEquals("true", serverError.headers().firstValue("Stripe-Should-Retry").orElseThrow());
        assertEquals(429, rateLimited.statusCode());
        assertEquals("3", rateLimited.headers().firstValue("Retry-After").orElseThrow());
        assertEquals(503, outage.statusCode());
        assertEquals(409, conflict.statusCode());
        assertEquals("idempotency_key_in_use", errorField(conflict, "code"));
        assertTrue(empty.body().isEmpty());
        assertEquals(200, replayed.statusCode());
        assertEquals("true", replayed.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(3, sim.refunds().size()); // rk-1 (conflict), rk-2 (empty body), rk-3 (timed out)
        assertEquals(8, sim.refundRequests());
    }

    @Test
    void genericRefundsKeepTheirPathAndResetForgetsStripeRefunds() throws Exception {
        String id = paid(1000, "pay_1").get("id").asText();
        String stripeRefund = JSON.readTree(refund("rk-1", "payment_intent=" + id).body()).get("id").asText();
        HttpResponse<String> generic = http.send(http.idempotentPost("/v1/refunds", "g-1",
                "{\"charge\":\"ch_unknown\",\"reference\":\"rf_g\"}", Duration.ofSeconds(5)));

        assertEquals(404, generic.statusCode());
        assertEquals("not_found", SimHttp.errorType(generic));
        assertEquals(200, get("/v1/refunds/" + stripeRefund).statusCode());

        http.post("/_sim/reset", "");

        assertEquals(404, get("/v1/refunds/" + stripeRefund).statusCode());
        assertTrue(sim.refunds().isEmpty());
    }

    // --- plumbing -------------------------------------------------------------------------------

    /** A succeeded PaymentIntent of {@code amount} euro cents. */
    private JsonNode paid(long amount, String reference) throws IOException, InterruptedException {
        HttpResponse<String> response = createIntent("pk-" + reference, amount, reference, "pm_card_visa");
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> createIntent(String key, long amount, String reference, String method)
            throws IOException, InterruptedException {
        return send(form("/v1/payment_intents", key, "amount=" + amount + "&currency=eur&payment_method=" + method
                + "&confirm=true&metadata%5Boncepay_payment_id%5D=" + reference));
    }

    private HttpResponse<String> refund(String key, String form) throws IOException, InterruptedException {
        return send(refundRequest(key, form));
    }

    private HttpRequest refundRequest(String key, String form) {
        return form("/v1/refunds", key, form);
    }

    private HttpRequest form(String path, String key, String form) {
        return SimHttp.stripePost(http.uri(path), API_KEY, key, form);
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(http.uri(path)).header("Authorization", "Bearer " + API_KEY)
                .header("Stripe-Version", "2026-07-29.dahlia").GET().build());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String errorField(HttpResponse<String> response, String field) throws IOException {
        return JSON.readTree(response.body()).get("error").path(field).asText(null);
    }

    /** The next {@code n} events by type: a settle's events are sent at once and arrive in any order, as Stripe's do. */
    private static Map<String, JsonNode> nextEvents(WebhookReceiver receiver, int n) throws Exception {
        Map<String, JsonNode> byType = new HashMap<>();
        for (int i = 0; i < n; i++) {
            JsonNode event = receiver.next().json();
            byType.put(event.get("type").asText(), event);
        }
        return byType;
    }
}
