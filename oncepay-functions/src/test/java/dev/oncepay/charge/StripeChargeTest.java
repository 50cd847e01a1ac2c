package dev.oncepay.charge;

import static dev.oncepay.testing.Problems.assertProblem;
import static dev.oncepay.testing.Problems.errorFields;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.stripe.StripeAdapter;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The charge function (real API Gateway events through the Lambda mock server) for a tenant whose
 * provider account is Stripe ({@code merchant-stripe} → {@code stripe-test} in the test profile),
 * against the simulator's Stripe mode over HTTP; the simulator's ledger says what was charged.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeChargeTest extends ChargeTestSupport {
    static final String TENANT = "merchant-stripe";
    static final ProviderAccount ACCOUNT = new ProviderAccount("stripe", "stripe-test");

    @Inject
    StripeAdapter stripe;

    @BeforeEach
    void stripeTenant() {
        tenant = TENANT;
    }

    static String stripeBody(long amount, String reference, String paymentMethod) {
        return "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"" + reference
                + "\",\"paymentMethod\":\"" + paymentMethod + "\"}";
    }

    private String reference() {
        return "order_" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void aSucceededPaymentIntentIs201WithItsIdAndOneChargeUnderOurProviderKey() {
        ApiResponse answer = post(newKey(), stripeBody(4200, reference(), "pm_card_visa"));

        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().get("id").asText();
        assertEquals("succeeded", answer.json().get("status").asText());
        String intent = answer.json().get("providerPaymentId").asText();
        assertTrue(intent.startsWith("pi_"), intent);
        List<LedgerEntry> charges = ledgerOf(id);
        assertEquals(1, charges.size());
        assertEquals("oncepay-" + id, charges.get(0).idempotencyKey());
        assertEquals(sim.stripe().paymentIntentId(id).orElseThrow(), intent);
        Map<String, AttributeValue> stored = storedPayment(id);
        assertEquals("stripe", stored.get(Table.PROVIDER).s());
        assertEquals("stripe-test", stored.get(Table.PROVIDER_ACCOUNT).s());
        assertEquals("pm_card_visa", stored.get(Table.PAYMENT_METHOD).s());
    }

    @Test
    void aDeclineIs402WithStripesDeclineCode() {
        ApiResponse generic = post(newKey(), stripeBody(4200, reference(), "pm_card_chargeDeclined"));
        ApiResponse insufficient = post(newKey(), stripeBody(4200, reference(), "pm_card_chargeDeclinedInsufficientFunds"));

        JsonNode genericProblem = assertProblem(generic, 402, "payment-declined");
        JsonNode insufficientProblem = assertProblem(insufficient, 402, "payment-declined");
        assertEquals("generic_decline", genericProblem.get("declineCode").asText());
        assertEquals("insufficient_funds", insufficientProblem.get("declineCode").asText());
        String id = insufficientProblem.get("paymentId").asText();
        assertEquals("declined", ledgerOf(id).get(0).status());
        assertEquals(sim.stripe().paymentIntentId(id).orElseThrow(),
                insufficientProblem.get("payment").get("providerPaymentId").asText());
    }

    @Test
    void aPaymentMethodStripeDoesNotKnowIsRefusedAsSentAndNothingIsCharged() {
        ApiResponse answer = post(newKey(), stripeBody(4200, reference(), "pm_card_unknownToStripe"));

        JsonNode problem = assertProblem(answer, 402, "payment-declined");
        assertEquals("provider_rejected_resource_missing", problem.get("declineCode").asText());
        assertEquals(List.of(), ledgerOf(problem.get("paymentId").asText()));
        assertEquals(1, sim.chargeRequests(), "a refusal is final: not retried");
    }

    @Test
    void requiresActionIs202WithWhatTheFrontEndNeedsToFinishIt() throws Exception {
        String key = newKey();
        String body = stripeBody(4200, reference(), "pm_card_authenticationRequired");

        ApiResponse answer = post(key, body);

        assertEquals(202, answer.status(), answer.body());
        String id = answer.json().get("id").asText();
        String intent = sim.stripe().paymentIntentId(id).orElseThrow();
        assertEquals("requires_action", answer.json().get("status").asText());
        assertEquals("/payments/" + id, answer.header("Location"));
        assertEquals(intent, answer.json().get("providerPaymentId").asText());
        JsonNode action = answer.json().get("nextAction");
        assertNotNull(action, "the 202 carries Stripe's next_action: " + answer.body());
        assertEquals("use_stripe_sdk", action.get("type").asText());
        assertTrue(answer.json().get("clientSecret").asText().startsWith(intent + "_secret_"), answer.body());
        assertEquals(List.of(), ledgerOf(id), "nothing charged until the customer acts");
        ApiResponse replay = post(key, body);
        assertEquals(answer.body(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(answer.json(), shownAsCharged(id), "GET shows the front end the same action");
    }

    @Test
    void anIdempotencyErrorIsNeedsReviewNeverADecline() throws Exception {
        String key = newKey();
        hooks.parkOnceAfter(ChargePhase.PAYMENT_RECORDED);
        CompletableFuture<ApiResponse> run = CompletableFuture.supplyAsync(
                () -> post(key, stripeBody(4200, reference(), "pm_card_visa")));
        assertTrue(hooks.awaitParked(), "the run recorded its payment");
        String id = StoredItems.keyItem(tenant, key).orElseThrow().get(Table.PAYMENT_ID).s();
        // Our provider key reaches Stripe first with other parameters (a bug or tampering).
        stripe.sendCharge(new AccountEndpoint(ACCOUNT, URI.create(sim.baseUrl()), "sk_test_tamper"), tampered(id));
        hooks.release();

        ApiResponse answer = run.get(30, TimeUnit.SECONDS);

        assertEquals(200, answer.status(), answer.body());
        assertEquals("needs_review", answer.json().get("status").asText());
        assertEquals("provider_rejected_request", answer.json().get("reviewReason").asText());
        assertEquals(answer.json(), shownAsCharged(id), "GET shows the same, reason included");
        assertNull(answer.json().get("declineCode"), "never a decline");
        Map<String, AttributeValue> stored = storedPayment(id);
        assertEquals("NEEDS_REVIEW", stored.get(Table.STATUS).s());
        assertTrue(stored.get(Table.STATUS_REASON).s().contains("idempotency_error"), stored.toString());
        assertNull(stored.get(Table.DECLINE_CODE));
        assertEquals(List.of(1L), ledgerOf(id).stream().map(LedgerEntry::amount).toList(),
                "only the other request's charge, of its amount");
    }

    @Test
    void aServerErrorIsRetriedWithTheSameKeyAndChargesOnce() {
        // The first attempt is executed at Stripe, then answered 500 (Should-Retry: true): the retry
        // with the same key gets the stored charge, never a second one.
        sim.stripe().scriptError(500, "api_error", null, Map.of("Stripe-Should-Retry", "true"), true);

        ApiResponse answer = post(newKey(), stripeBody(4200, reference(), "pm_card_visa"));

        assertEquals(201, answer.status(), answer.body());
        assertEquals(1, ledgerOf(answer.json().get("id").asText()).size());
        assertEquals(2, sim.chargeRequests());
    }

    @Test
    void aServerErrorStripeSaysNotToRetryIs202AndNotRetried() {
        sim.stripe().scriptError(500, "api_error", null, Map.of("Stripe-Should-Retry", "false"), true);

        ApiResponse answer = post(newKey(), stripeBody(4200, reference(), "pm_card_visa"));

        assertEquals(202, answer.status(), answer.body());
        assertEquals("pending", answer.json().get("status").asText());
        assertEquals(1, sim.chargeRequests(), "Stripe said not to retry");
        assertEquals("UNKNOWN", storedPayment(answer.json().get("id").asText()).get(Table.STATUS).s());
    }

    @Test
    void aRateLimitIsRetriedAfterStripesRetryAfter() {
        sim.stripe().scriptError(429, "rate_limit_error", "rate_limit", Map.of("Retry-After", "1"), false);

        long started = System.nanoTime();
        ApiResponse answer = post(newKey(), stripeBody(4200, reference(), "pm_card_visa"));
        long waitedMillis = (System.nanoTime() - started) / 1_000_000;

        assertEquals(201, answer.status(), answer.body());
        assertEquals(2, sim.chargeRequests());
        assertTrue(waitedMillis >= 1000, "waited " + waitedMillis + " ms for Retry-After: 1");
        assertEquals(1, ledgerOf(answer.json().get("id").asText()).size());
    }

    @Test
    void aMissingOrMalformedPaymentMethodIs400AndNothingIsStoredOrSent() {
        int itemsBefore = storedItems().size();
        List<String> bodies = List.of(
                body(4200, "EUR", "order_no_pm"),
                stripeBody(4200, "order_bad_pm", "card_4242"),
                stripeBody(4200, "order_long_pm", "pm_" + "x".repeat(251)),
                "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_bad_cus\",\"paymentMethod\":\"pm_card_visa\","
                        + "\"customer\":\"acct_1\"}");
        List<Set<String>> fields = List.of(Set.of("paymentMethod"), Set.of("paymentMethod"), Set.of("paymentMethod"),
                Set.of("customer"));

        for (int i = 0; i < bodies.size(); i++) {
            String key = newKey();
            ApiResponse refused = post(key, bodies.get(i));
            assertProblem(refused, 400, "invalid-request");
            assertEquals(fields.get(i), errorFields(refused), bodies.get(i));
            assertTrue(StoredItems.keyItem(tenant, key).isEmpty(), "the key is not kept: " + bodies.get(i));
        }
        assertEquals(itemsBefore, storedItems().size());
        assertEquals(0, sim.chargeRequests());
    }

    private Payment tampered(String id) {
        Instant now = Instant.now();
        return new Payment(id, tenant, PaymentStatus.PENDING, 1, "EUR", "tampered", null, null, null, null, now, now, 1,
                0, ACCOUNT, now, new PaymentInstrument("pm_card_visa", null), null);
    }

    private List<LedgerEntry> ledgerOf(String paymentId) {
        return sim.ledger().stream().filter(e -> e.reference().equals(paymentId)).toList();
    }
}
