package dev.oncepay.webhook;

import static dev.oncepay.webhook.WebhookRequests.chargeEvent;
import static dev.oncepay.webhook.WebhookRequests.newEventId;
import static dev.oncepay.webhook.WebhookRequests.signNow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.charge.ChargePhase;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A webhook settles the payment while its charge run sits between the provider's answer and its
 * fenced settle (parked after {@code PROVIDER_ANSWERED}). The run's settle then loses, and its own
 * provider answer goes through the state machine like any other fact: agreeing, the client gets
 * the settled payment; contradicting (another outcome, another charge), the payment goes to
 * NEEDS_REVIEW with both facts. Either way the answer to the client's first request is not a
 * replay. The charge side is called through its adapter bean (this application exports
 * {@code webhook}); the webhook through the function's entry point, signed as the provider signs.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ChargeRunLosesItsSettleTest extends WebhookChargeSupport {
    private static final String TENANT = "merchant-lost-settle";

    @Inject
    PhaseHooks chargePhases;

    @BeforeEach
    void reset() {
        chargePhases.reset();
    }

    @AfterEach
    void cleanUp() {
        chargePhases.reset();
        simulator.reset();
    }

    @Test
    void anAgreeingWebhookFirstLeavesTheRunAnsweringTheSettledPaymentAsItsOwnAnswer() throws Exception {
        ParkedRun run = chargeParkedAfterTheProviderAnswered(4200);
        LedgerEntry charge = run.charge();
        String eventId = newEventId();
        assertEquals("applied", webhook(chargeEvent(eventId, "charge.succeeded", run.paymentId(), charge.id(), 4200,
                "EUR")));

        HttpApiResponse answer = run.resume();

        assertEquals(201, answer.statusCode(), answer.body());
        assertNull(answer.header("Idempotent-Replayed"), "the client's first answer is never a replay");
        JsonNode body = json.readTree(answer.body());
        assertEquals("succeeded", body.get("status").asText());
        assertEquals(charge.id(), body.get("providerPaymentId").asText());
        Payment settled = payments.find(run.paymentId()).orElseThrow();
        assertEquals("webhook sim/" + eventId, settled.statusReason(), "the webhook's write stands");
        HttpApiResponse replay = charge(run.key(), 4200);
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(answer.body(), replay.body());
        assertEquals(1, simulator.ledger().size());
    }

    @Test
    void aWebhookWithTheOtherOutcomeFirstSendsThePaymentToReviewWithBothFacts() throws Exception {
        ParkedRun run = chargeParkedAfterTheProviderAnswered(4300);
        String eventId = newEventId();
        assertEquals("applied", webhook(chargeEvent(eventId, "charge.failed", run.paymentId(), run.charge().id(), 4300,
                "EUR")));
        assertEquals(PaymentStatus.FAILED, payments.find(run.paymentId()).orElseThrow().status());

        HttpApiResponse answer = run.resume();

        assertEquals(200, answer.statusCode(), answer.body());
        assertNull(answer.header("Idempotent-Replayed"));
        assertEquals("needs_review", json.readTree(answer.body()).get("status").asText());
        Payment review = payments.find(run.paymentId()).orElseThrow();
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        String reason = review.statusReason();
        assertTrue(reason.contains("charge run epoch 1") && reason.contains("SUCCEEDED"), reason);
        assertTrue(reason.contains("FAILED") && reason.contains("webhook sim/" + eventId), reason);
        assertEquals(run.charge().id(), review.providerPaymentId(), "the recorded charge is kept for the reviewer");
        assertEquals("true", charge(run.key(), 4300).header("Idempotent-Replayed"));
    }

    @Test
    void aWebhookWithAnotherChargeFirstSendsThePaymentToReviewWithBothCharges() throws Exception {
        ParkedRun run = chargeParkedAfterTheProviderAnswered(4400);
        assertEquals("applied", webhook(chargeEvent(newEventId(), "charge.succeeded", run.paymentId(), "ch_elsewhere",
                4400, "EUR")));

        HttpApiResponse answer = run.resume();

        assertEquals(200, answer.statusCode(), answer.body());
        assertNull(answer.header("Idempotent-Replayed"));
        Payment review = payments.find(run.paymentId()).orElseThrow();
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains(run.charge().id()) && review.statusReason().contains("ch_elsewhere"),
                review.statusReason());
    }

    @Test
    void aDeclinedRunLosingToASucceededWebhookSendsThePaymentToReview() throws Exception {
        simulator.setFaults(Faults.none().withDeclineRate(1.0));
        ParkedRun run = chargeParkedAfterTheProviderAnswered(4500);
        assertEquals("declined", run.charge().status());
        assertEquals("applied", webhook(chargeEvent(newEventId(), "charge.succeeded", run.paymentId(),
                run.charge().id(), 4500, "EUR")));

        HttpApiResponse answer = run.resume();

        assertEquals(200, answer.statusCode(), answer.body());
        Payment review = payments.find(run.paymentId()).orElseThrow();
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains("FAILED") && review.statusReason().contains("SUCCEEDED"),
                review.statusReason());
    }

    /** A charge run frozen after the provider answered, before its settle write. */
    private record ParkedRun(String key, String paymentId, LedgerEntry charge,
            CompletableFuture<HttpApiResponse> answer, PhaseHooks hooks) {
        HttpApiResponse resume() throws Exception {
            hooks.release();
            return answer.get(30, TimeUnit.SECONDS);
        }
    }

    private ParkedRun chargeParkedAfterTheProviderAnswered(long amount) throws InterruptedException {
        String key = UUID.randomUUID().toString();
        chargePhases.parkOnceAfter(ChargePhase.PROVIDER_ANSWERED);
        CompletableFuture<HttpApiResponse> answer = CompletableFuture.supplyAsync(() -> charge(key, amount));
        assertTrue(chargePhases.awaitParked(), "the run reached the provider's answer");
        List<LedgerEntry> ledger = simulator.ledger();
        assertEquals(1, ledger.size(), ledger::toString);
        String paymentId = ledger.get(0).reference();
        assertEquals(PaymentStatus.PENDING, payments.find(paymentId).orElseThrow().status());
        return new ParkedRun(key, paymentId, ledger.get(0), answer, chargePhases);
    }

    private HttpApiResponse charge(String key, long amount) {
        return postPayment(TENANT, key, "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"order_" + key + "\"}");
    }

    /** Delivers the body signed by the simulator's secret through the webhook function; its outcome. */
    private static String webhook(String body) {
        ApiResponse response = WebhookRequests.call(WebhookRequests.event("sim", body,
                signNow(WebhookTestProfile.SIM_SECRET, body)));
        assertEquals(200, response.status(), response.body());
        return response.json().get("outcome").asText();
    }
}
