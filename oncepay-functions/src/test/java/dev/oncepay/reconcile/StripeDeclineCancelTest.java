package dev.oncepay.reconcile;

import static dev.oncepay.testing.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.charge.ChargePhase;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.function.WebhookFunction;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository.SweepState;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.sim.StripeMode;
import dev.oncepay.sim.WebhookAttempt;
import dev.oncepay.testing.DirectInvoker;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.webhook.ApiGatewayBridge;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A declined Stripe PaymentIntent stays confirmable with its client secret: the charge function
 * cancels it when it records FAILED, the reconcile Lambda cancels it again until Stripe confirms
 * (counted meanwhile by the sweep's {@code CancelPendingBacklog} gauge), and a shopper who paid
 * it first puts the payment in review, which the answer says. A {@code payment_intent.payment_failed}
 * webhook that records FAILED leaves the cancel to the sweep. The shopper's browser is real HTTP
 * to the simulator's {@code /confirm}, with a publishable key; the simulator's webhooks are real
 * HTTP to an API Gateway stand-in that invokes the webhook function's entry method.
 */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeDeclineCancelTest {
    private static final String TENANT = "merchant-stripe";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The first check of a payment due for the sweep (oncepay.sweep.first-check-delay) plus a second. */
    private static final Duration FIRST_CHECK = Duration.ofSeconds(31);
    /** The longest deferral in the test profile (backoff cap 1 min) plus a second. */
    private static final Duration NEXT_CHECK = Duration.ofSeconds(61);

    @Inject
    ReconcileFixture fx;
    @Inject
    DirectInvoker charge;
    @Inject
    TestClock clock;
    @Inject
    PhaseHooks chargeHooks;
    @Inject
    RecordingMetrics metrics;
    @Inject
    WebhookFunction webhook;
    @Inject
    ObjectMapper json;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void reset() {
        fx.reset();
    }

    @Test
    void aDeclinedPaymentIntentIsCanceledSoTheShopperCannotPayItLater() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = body("pm_card_chargeDeclined");

        ApiResponse declined = post(key, body);

        JsonNode problem = assertProblem(declined, 402, "payment-declined");
        String id = problem.get("paymentId").asText();
        String intent = problem.get("payment").get("providerPaymentId").asText();
        assertEquals("canceled", intent(intent).get("status").asText(), "canceled when FAILED was recorded");
        HttpResponse<String> shopperRetries = confirmInBrowser(intent, "pm_card_visa");
        assertEquals(400, shopperRetries.statusCode(), shopperRetries.body());
        assertEquals("payment_intent_unexpected_state",
                JSON.readTree(shopperRetries.body()).get("error").get("code").asText());
        assertEquals(List.of("declined"), fx.ledgerOf(id).stream().map(LedgerEntry::status).toList(), "nothing paid");
        assertEquals(PaymentStatus.FAILED, fx.state(id).payment().status());
        assertNull(fx.state(id).nextCheckAt(), "nothing left for the sweep");
        ApiResponse replay = post(key, body);
        assertEquals(declined.body(), replay.body(), "the 402 stays true, byte for byte");
    }

    @Test
    void aShopperWhoPaysBeforeTheCancelPutsThePaymentInReviewAndTheAnswerSaysSo() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = body("pm_card_chargeDeclined");
        chargeHooks.parkOnceAfter(ChargePhase.SETTLED);
        CompletableFuture<ApiResponse> answer = CompletableFuture.supplyAsync(() -> post(key, body));
        assertTrue(chargeHooks.awaitParked(), "the charge run recorded FAILED");
        String id = Attr.string(StoredItems.keyItem(TENANT, key).orElseThrow(), Table.PAYMENT_ID);
        assertEquals(PaymentStatus.FAILED, fx.state(id).payment().status());
        String intent = fx.state(id).payment().providerPaymentId();

        HttpResponse<String> shopperPays = confirmInBrowser(intent, "pm_card_visa");
        assertEquals(200, shopperPays.statusCode(), shopperPays.body());
        chargeHooks.release();
        ApiResponse told = answer.get(30, TimeUnit.SECONDS);

        assertEquals(200, told.status(), told.body());
        assertEquals("needs_review", told.json().get("status").asText(), told.body());
        assertEquals("conflicting_facts", told.json().get("reviewReason").asText(), told.body());
        assertEquals(PaymentStatus.NEEDS_REVIEW, fx.state(id).payment().status());
        assertEquals(List.of("declined", "succeeded"), fx.ledgerOf(id).stream().map(LedgerEntry::status).toList());
        ApiResponse replay = post(key, body);
        assertEquals(200, replay.status(), replay.body());
        assertEquals("needs_review", replay.json().get("status").asText(), replay.body());
    }

    @Test
    void aCancelStripeDoesNotAnswerIsSentAgainByTheSweepUntilStripeConfirmsIt() throws Exception {
        Map<String, String> noRetry = Map.of("Stripe-Should-Retry", "false");
        fx.sim().stripe().scriptCancelError(500, "api_error", null, noRetry, false);
        String key = UUID.randomUUID().toString();

        JsonNode problem = assertProblem(post(key, body("pm_card_chargeDeclined")), 402, "payment-declined");
        String id = problem.get("paymentId").asText();
        String intent = problem.get("payment").get("providerPaymentId").asText();
        assertEquals("requires_payment_method", intent(intent).get("status").asText());
        assertEquals(PaymentStatus.FAILED, fx.state(id).payment().status());
        assertNotNull(fx.state(id).nextCheckAt(), "the cancel is pending: listed for the sweep");

        clock.advance(FIRST_CHECK);
        fx.sim().stripe().scriptCancelError(503, "api_error", null, noRetry, false);
        fx.sweep();
        assertEquals("requires_payment_method", intent(intent).get("status").asText());
        assertNotNull(fx.state(id).nextCheckAt(), "still pending after a second failed cancel");
        assertEquals(1.0, metrics.lastGauge(Metrics.CANCEL_PENDING_BACKLOG), "the sweep's gauge counts the open cancel");

        clock.advance(NEXT_CHECK);
        fx.sweep();
        assertEquals(0.0, metrics.lastGauge(Metrics.CANCEL_PENDING_BACKLOG), "confirmed: no longer counted");
        assertEquals("canceled", intent(intent).get("status").asText());
        assertEquals(PaymentStatus.FAILED, fx.state(id).payment().status());
        assertNull(fx.state(id).nextCheckAt(), "canceled: out of the sweep");
        assertEquals(400, confirmInBrowser(intent, "pm_card_visa").statusCode());
        assertEquals(List.of("declined"), fx.ledgerOf(id).stream().map(LedgerEntry::status).toList());
    }

    @Test
    void aPaymentIntentFailedByItsWebhookIsCanceledByTheSweepSoTheShopperCannotPayItLater() throws Exception {
        ApiResponse waiting = post(UUID.randomUUID().toString(), body("pm_card_authenticationRequired"));
        assertEquals(202, waiting.status(), waiting.body());
        assertEquals("requires_action", waiting.json().get("status").asText(), waiting.body());
        String id = waiting.json().get("id").asText();
        String intent = waiting.json().get("providerPaymentId").asText();

        List<WebhookAttempt> deliveries = failAuthenticationAndDeliverItsWebhook(intent);

        assertEquals(List.of("payment_intent.payment_failed"), deliveries.stream().map(WebhookAttempt::type).distinct()
                .toList(), deliveries::toString);
        assertTrue(deliveries.stream().allMatch(a -> a.status() == 200), deliveries::toString);
        SweepState recorded = fx.state(id);
        Payment failed = recorded.payment();
        assertEquals(PaymentStatus.FAILED, failed.status());
        assertEquals("payment_intent_authentication_failure", failed.declineCode());
        assertTrue(failed.cancelPending(), "the webhook records the cancel pending with FAILED");
        assertTrue(recorded.dueAt(clock.instant()), "due for the next sweep: " + recorded.nextCheckAt());
        assertEquals("requires_payment_method", intent(intent).get("status").asText(),
                "the webhook function does not call Stripe");
        ApiResponse shown = charge.call(HttpApiEvents.getPayment(TENANT, id));
        assertEquals("failed", shown.json().get("status").asText(), shown.body());

        Map<String, String> noRetry = Map.of("Stripe-Should-Retry", "false");
        fx.sim().stripe().scriptCancelError(500, "api_error", null, noRetry, false);
        fx.sweep();
        assertEquals("requires_payment_method", intent(intent).get("status").asText());
        assertEquals(1.0, metrics.lastGauge(Metrics.CANCEL_PENDING_BACKLOG), "the sweep's gauge counts the open cancel");

        clock.advance(NEXT_CHECK);
        fx.sweep();
        assertEquals("canceled", intent(intent).get("status").asText());
        assertEquals(0.0, metrics.lastGauge(Metrics.CANCEL_PENDING_BACKLOG));
        Payment canceled = fx.state(id).payment();
        assertEquals(PaymentStatus.FAILED, canceled.status());
        assertFalse(canceled.cancelPending());
        assertNull(fx.state(id).nextCheckAt(), "canceled: out of the sweep");
        HttpResponse<String> shopperRetries = confirmInBrowser(intent, "pm_card_visa");
        assertEquals(400, shopperRetries.statusCode(), shopperRetries.body());
        assertEquals("payment_intent_unexpected_state",
                JSON.readTree(shopperRetries.body()).get("error").get("code").asText());
        assertTrue(fx.ledgerOf(id).stream().noneMatch(e -> e.status().equals("succeeded")), "nothing paid");
    }

    /**
     * The shopper fails 3-D Secure at the simulator, whose Stripe webhooks go over HTTP to the
     * webhook function; returns the simulator's delivery attempts.
     */
    private List<WebhookAttempt> failAuthenticationAndDeliverItsWebhook(String intent) throws IOException {
        try (ApiGatewayBridge gateway = new ApiGatewayBridge(this::webhook)) {
            // The secret of account stripe-test in the test configuration.
            fx.sim().stripe().setWebhookTarget(gateway.webhookUrl(StripeMode.PROVIDER_ID),
                    StripeMode.DEFAULT_WEBHOOK_SECRET);
            fx.sim().stripe().authenticate(intent, false);
            assertTrue(fx.sim().stripe().awaitWebhooks(Duration.ofSeconds(20)), "the simulator's webhooks delivered");
            return fx.sim().stripe().webhookAttempts();
        } finally {
            fx.sim().stripe().clearWebhookTarget();
        }
    }

    /** The webhook function's entry method, as its Lambda runtime invokes it with the HTTP API event. */
    private ApiResponse webhook(String event) {
        try {
            return ApiResponse.of(json.valueToTree(webhook.webhook(json.readValue(event, HttpApiEvent.class))));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private ApiResponse post(String key, String body) {
        return charge.call(HttpApiEvents.postPayment(TENANT, key, body));
    }

    private static String body(String paymentMethod) {
        return "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_" + UUID.randomUUID().toString().substring(0, 8)
                + "\",\"paymentMethod\":\"" + paymentMethod + "\"}";
    }

    /** The PaymentIntent as Stripe shows it to the merchant's secret key. */
    private JsonNode intent(String id) throws Exception {
        HttpResponse<String> found = http.send(HttpRequest.newBuilder(URI.create(fx.sim().baseUrl() + "/v1/payment_intents/" + id))
                .header("Authorization", "Bearer sk_test_oncepay").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, found.statusCode(), found.body());
        return JSON.readTree(found.body());
    }

    /** The shopper's browser confirming again with the client secret, as Stripe.js does. */
    private HttpResponse<String> confirmInBrowser(String id, String paymentMethod) throws Exception {
        String form = "payment_method=" + paymentMethod + "&client_secret="
                + URLEncoder.encode(intent(id).get("client_secret").asText(), StandardCharsets.UTF_8);
        return http.send(HttpRequest.newBuilder(URI.create(fx.sim().baseUrl() + "/v1/payment_intents/" + id + "/confirm"))
                .header("Authorization", "Bearer pk_test_oncepay")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
