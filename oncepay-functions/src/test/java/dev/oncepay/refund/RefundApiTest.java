package dev.oncepay.refund;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.sim.Faults;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code POST /payments/{id}/refunds} and its reads, through the charge function, counted at the provider. */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class RefundApiTest extends RefundTestSupport {

    @Test
    void aRefundWithoutAmountGivesBackEverythingOnceAndThePaymentShowsIt() {
        String paymentId = capturedPayment(10_000);
        String key = newKey();

        ApiResponse refunded = refund(paymentId, key, "{\"reason\":\"returned\",\"metadata\":{\"rma\":\"R-1\"}}");

        assertEquals(201, refunded.status(), refunded.body());
        JsonNode refund = refunded.json();
        String refundId = refund.get("id").asText();
        assertTrue(refundId.matches("ref_[0-9a-f]{32}"), refundId);
        assertEquals("succeeded", refund.get("status").asText());
        assertEquals(10_000, refund.get("amount").asLong());
        assertEquals("EUR", refund.get("currency").asText());
        assertEquals("returned", refund.get("reason").asText());
        assertEquals("R-1", refund.get("metadata").get("rma").asText());
        assertEquals("/payments/" + paymentId + "/refunds/" + refundId, refunded.header("Location"));
        List<dev.oncepay.sim.Refund> atProvider = providerRefunds(paymentId);
        assertEquals(1, atProvider.size(), "one refund at the provider");
        assertEquals(refundId, atProvider.get(0).reference());
        assertEquals("oncepay-" + refundId, atProvider.get(0).idempotencyKey(), "the provider key derives from the refund");
        assertEquals(refund.get("providerRefundId").asText(), atProvider.get(0).id());

        JsonNode payment = get(paymentId).json();
        assertEquals("succeeded", payment.get("status").asText(), "the payment's own status stays");
        assertEquals(10_000, payment.get("amountRefunded").asLong());
        assertEquals("refunded", payment.get("refundStatus").asText());
        assertEquals(refund, payment.get("refunds").get(0));
        assertEquals(refund, showRefund(paymentId, refundId).json());

        ApiResponse again = refund(paymentId, newKey(), "{}");
        assertEquals(409, again.status());
        assertEquals("https://oncepay.dev/problems/payment-not-refundable", again.json().get("type").asText());
        assertEquals(1, sim.refundRequests(), "the refused refund never reached the provider");
        assertEquals(1, storedRefunds().size(), "and nothing was stored for it");
    }

    @Test
    void aRetryWithTheSameKeyReplaysTheAnswerAndAChangedBodyIsRefused() {
        String paymentId = capturedPayment(5_000);
        String key = newKey();
        ApiResponse first = refund(paymentId, key, amount(1_500));

        ApiResponse replay = refund(paymentId, key, "{ \"amount\" : 1500 }");
        ApiResponse changed = refund(paymentId, key, amount(1_600));

        assertEquals(201, first.status());
        assertEquals(201, replay.status());
        assertEquals(first.body(), replay.body(), "the same bytes");
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(422, changed.status());
        assertEquals("https://oncepay.dev/problems/idempotency-key-reused", changed.json().get("type").asText());
        assertEquals(1, sim.refunds().size());
        assertEquals(1_500, held(paymentId));
    }

    @Test
    void partialRefundsStopAtTheCapturedAmount() {
        String paymentId = capturedPayment(10_000);
        assertEquals(201, refund(paymentId, newKey(), amount(3_000)).status());
        assertEquals(201, refund(paymentId, newKey(), amount(5_000)).status());

        ApiResponse tooMuch = refund(paymentId, newKey(), amount(3_000));

        assertEquals(409, tooMuch.status());
        assertEquals("https://oncepay.dev/problems/refund-exceeds-charge", tooMuch.json().get("type").asText());
        assertEquals(2_000, tooMuch.json().get("amountRefundable").asLong());
        assertEquals(2, sim.refundRequests(), "refused before any provider call");
        JsonNode payment = get(paymentId).json();
        assertEquals(8_000, payment.get("amountRefunded").asLong());
        assertEquals("partially_refunded", payment.get("refundStatus").asText());

        ApiResponse rest = refund(paymentId, newKey(), "{}");
        assertEquals(201, rest.status());
        assertEquals(2_000, rest.json().get("amount").asLong(), "what is left");
        assertEquals(10_000, providerRefunds(paymentId).stream().mapToLong(dev.oncepay.sim.Refund::amount).sum());
        assertEquals(10_000, held(paymentId));
    }

    @Test
    void aPaymentThatDidNotSucceedIsNotRefundableAndNothingIsStored() {
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        ApiResponse declined = post(newKey(), body(2_000, "EUR", "order-declined"));
        assertEquals(402, declined.status());
        String paymentId = declined.json().get("paymentId").asText();
        sim.setFaults(Faults.none());
        int before = storedItems().size();

        ApiResponse refused = refund(paymentId, newKey(), "{}");

        assertEquals(409, refused.status());
        assertEquals("https://oncepay.dev/problems/payment-not-refundable", refused.json().get("type").asText());
        assertEquals(paymentId, refused.json().get("paymentId").asText());
        assertEquals(before, storedItems().size(), "no key, no refund");
        assertEquals(0, sim.refundRequests());
    }

    @Test
    void anotherTenantsPaymentIsNotFoundAndItsRefundsAreNotShown() {
        String paymentId = capturedPayment(3_000);
        ApiResponse mine = refund(paymentId, newKey(), amount(1_000));
        String refundId = mine.json().get("id").asText();

        ApiResponse theirs = LambdaClient.call(HttpApiEvents.postRefund("intruder", paymentId, newKey(), "{}"));
        ApiResponse peek = LambdaClient.call(HttpApiEvents.getRefund("intruder", paymentId, refundId));

        assertEquals(404, theirs.status());
        assertEquals(404, peek.status());
        assertEquals(1, sim.refunds().size());
        assertEquals(1_000, held(paymentId));
        assertEquals(404, showRefund(capturedPayment(100), refundId).status(), "a refund only under its own payment");
    }

    @Test
    void invalidRequestsAreRefusedWithNothingStoredAndNothingSent() {
        String paymentId = capturedPayment(3_000);
        int before = storedItems().size();
        for (String body : List.of("{\"amount\":0}", "{\"amount\":-5}", "{\"amount\":\"10\"}", "{\"amount\":1.5}",
                "{\"currency\":\"EUR\"}", "{\"metadata\":{\"k\":1}}", "{\"metadata\":[\"x\"]}", "{\"reason\":\"\"}",
                "[]", "not json")) {
            ApiResponse answer = refund(paymentId, newKey(), body);
            assertEquals(400, answer.status(), body + " -> " + answer.body());
            assertEquals("https://oncepay.dev/problems/invalid-request", answer.json().get("type").asText());
        }
        ApiResponse noKey = refund(paymentId, null, amount(10));
        assertEquals(400, noKey.status());
        ApiResponse badId = refund("pay_not-an-id", newKey(), amount(10));
        assertEquals(404, badId.status());
        assertEquals(before, storedItems().size());
        assertEquals(0, sim.refundRequests());
        assertEquals(0, held(paymentId));
    }

    @Test
    void theProviderRefusingTheRefundIs402AndGivesTheAmountBack() {
        String paymentId = capturedPayment(4_000);
        sim.setFaults(Faults.none().withRefundFailRate(1.0));

        ApiResponse failed = refund(paymentId, newKey(), amount(4_000));

        assertEquals(402, failed.status(), failed.body());
        JsonNode problem = failed.json();
        assertEquals("https://oncepay.dev/problems/refund-failed", problem.get("type").asText());
        assertEquals("failed", problem.get("refund").get("status").asText());
        assertEquals(0, held(paymentId), "released: the provider proved nothing was refunded");
        sim.setFaults(Faults.none());
        assertEquals(201, refund(paymentId, newKey(), amount(4_000)).status(), "so the whole amount is refundable");
        assertEquals(0, get(paymentId).json().get("amountRefundPending").asLong());
        assertEquals(4_000, get(paymentId).json().get("amountRefunded").asLong());
    }

    @Test
    void anUnansweredRefundIsPendingAndTheSweepSettlesIt() {
        String paymentId = capturedPayment(6_000);
        sim.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(6_000));
        String key = newKey();

        ApiResponse pending = refund(paymentId, key, amount(2_500));

        assertEquals(202, pending.status(), pending.body());
        assertEquals("pending", pending.json().get("status").asText());
        String refundId = pending.json().get("id").asText();
        assertEquals("/payments/" + paymentId + "/refunds/" + refundId, pending.header("Location"));
        assertEquals(1, sim.refunds().size(), "executed at the provider, unanswered");
        sim.setFaults(Faults.none());
        assertEquals(202, refund(paymentId, key, amount(2_500)).status(), "still pending until the sweep asks");

        clock.advance(java.time.Duration.ofMinutes(2));
        sweepRefunds(java.util.Set.of(refundId));

        ApiResponse settled = refund(paymentId, key, amount(2_500));
        assertEquals(201, settled.status(), settled.body());
        assertEquals("true", settled.header("Idempotent-Replayed"));
        assertEquals(1, sim.refunds().size(), "the sweep found it; nothing re-sent");
        assertNull(get(paymentId).json().get("refunds").get(0).get("failureCode").textValue());
        assertEquals(2_500, get(paymentId).json().get("amountRefunded").asLong());

        JsonNode detail = LambdaClient.call(HttpApiEvents.admin("GET", "/admin/payments/" + paymentId)
                .operator("arn:aws:iam::123456789012:role/oncepay-operator")).json();
        JsonNode steps = detail.get("refunds").get(0).get("history");
        assertEquals(refundId, detail.get("refunds").get(0).get("refund").get("id").asText());
        assertEquals(List.of("pending", "unknown", "succeeded"), List.of(steps.get(0).get("to").asText(),
                steps.get(1).get("to").asText(), steps.get(2).get("to").asText()), "every step of the refund");
        assertEquals(List.of("refund_run", "refund_run", "sweep"), List.of(steps.get(0).get("actor").get("kind").asText(),
                steps.get(1).get("actor").get("kind").asText(), steps.get(2).get("actor").get("kind").asText()));
    }

    @Test
    void aRefundNobodyCouldSendIs503AndTheKeyStaysFree() {
        String paymentId = capturedPayment(1_000);
        // 429: refused before execution, every attempt of the call.
        sim.setFaults(Faults.none().withRateLimitRate(1.0));
        String key = newKey();

        ApiResponse down = refund(paymentId, key, amount(1_000));

        assertEquals(503, down.status(), down.body());
        assertTrue(down.json().get("detail").asText().contains("nothing was refunded"), down.body());
        assertEquals(0, storedRefunds().size());
        assertEquals(0, held(paymentId));
        sim.setFaults(Faults.none());
        breakers.resetAll();
        assertEquals(201, refund(paymentId, key, amount(1_000)).status(), "the same key, once the provider is back");
        assertEquals(1, sim.refunds().size());
    }

    @Test
    void aRefundCostsOneReadFourWritesAndOneProviderCallAndAReplayNoProviderCall() {
        String paymentId = capturedPayment(9_000);
        assertEquals(201, refund(paymentId, newKey(), amount(1_000)).status(), "reads the refund breaker once");
        int calls = sim.refundRequests();
        String key = newKey();
        dynamoRequests.reset();

        assertEquals(201, refund(paymentId, key, amount(2_000)).status());

        // the payment with its reservations; claim the key, record the refund, reserve, settle (fenced)
        assertEquals(java.util.Map.of("GetItem", 1L, "PutItem", 2L, "UpdateItem", 2L), dynamoRequests.snapshot());
        assertEquals(calls + 1, sim.refundRequests());

        dynamoRequests.reset();
        assertEquals(201, refund(paymentId, key, amount(2_000)).status());
        // the payment, the failed claim, the key (dynalite ignores ReturnValuesOnConditionCheckFailure), the refund
        assertEquals(java.util.Map.of("GetItem", 3L, "PutItem", 1L), dynamoRequests.snapshot());
        assertEquals(calls + 1, sim.refundRequests());

        dynamoRequests.reset();
        assertEquals(200, get(paymentId).status());
        System.out.println("DynamoDB requests of GET /payments/{id} with refunds: " + dynamoRequests.snapshot());
    }
}
