package dev.oncepay.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.testing.PaymentViews;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.sim.Faults;
import dev.oncepay.testing.DirectInvoker;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stripe payments the charge function cannot settle, settled by the reconcile Lambda from Stripe's
 * own words: {@code processing}, {@code requires_action} until the customer acts, and a lost answer
 * Stripe's search does not show yet.
 */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeReconcileTest {
    private static final String TENANT = "merchant-stripe";
    /** The first check of an UNKNOWN payment (oncepay.sweep.first-check-delay) plus a second. */
    private static final Duration FIRST_CHECK = Duration.ofSeconds(31);
    /** The longest deferral in the test profile (backoff cap 1 min) plus a second. */
    private static final Duration NEXT_CHECK = Duration.ofSeconds(61);

    @Inject
    ReconcileFixture fx;
    @Inject
    DirectInvoker charge;
    @Inject
    TestClock clock;

    @BeforeEach
    void reset() {
        fx.reset();
    }

    private static String body(String paymentMethod) {
        return "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_" + UUID.randomUUID().toString().substring(0, 8)
                + "\",\"paymentMethod\":\"" + paymentMethod + "\"}";
    }

    private ApiResponse post(String key, String body) {
        return charge.call(HttpApiEvents.postPayment(TENANT, key, body));
    }

    @Test
    void processingIs202AndTheSweepSettlesItOnceStripeDoes() {
        fx.sim().stripe().settleLater(true);
        String key = UUID.randomUUID().toString();
        String body = body("pm_card_visa");

        ApiResponse accepted = post(key, body);

        assertEquals(202, accepted.status(), accepted.body());
        String id = accepted.json().get("id").asText();
        String intent = fx.sim().stripe().paymentIntentId(id).orElseThrow();
        assertEquals(intent, fx.state(id).payment().providerPaymentId(), "kept, to retrieve it by id");
        clock.advance(FIRST_CHECK);
        SweepSummary stillProcessing = fx.sweep();
        assertEquals(1, stillProcessing.deferred(), stillProcessing::toString);
        assertEquals(PaymentStatus.UNKNOWN, fx.state(id).payment().status());

        fx.sim().stripe().settle(intent, true);
        clock.advance(NEXT_CHECK);
        SweepSummary settled = fx.sweep();

        assertEquals(1, settled.settled().succeeded(), settled::toString);
        assertEquals(0, settled.resent() + stillProcessing.resent(), "never re-sent: Stripe holds it");
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
        ApiResponse replay = post(key, body);
        assertEquals(201, replay.status(), replay.body());
        assertEquals(1, fx.ledgerOf(id).size());
    }

    @Test
    void aPaymentTheCustomerAuthenticatesIsSettledByTheSweep() {
        ApiResponse approved = post(UUID.randomUUID().toString(), body("pm_card_authenticationRequired"));
        ApiResponse refused = post(UUID.randomUUID().toString(), body("pm_card_authenticationRequired"));
        String approvedId = approved.json().get("id").asText();
        String refusedId = refused.json().get("id").asText();
        assertEquals(202, approved.status(), approved.body());

        fx.sim().stripe().authenticate(fx.sim().stripe().paymentIntentId(approvedId).orElseThrow(), true);
        fx.sim().stripe().authenticate(fx.sim().stripe().paymentIntentId(refusedId).orElseThrow(), false);
        clock.advance(FIRST_CHECK);
        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().succeeded(), sweep::toString);
        assertEquals(1, sweep.settled().failed(), sweep::toString);
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(approvedId).payment().status());
        Payment failed = fx.state(refusedId).payment();
        assertEquals(PaymentStatus.FAILED, failed.status());
        assertEquals("payment_intent_authentication_failure", failed.declineCode());
        assertEquals(0, sweep.resent());
    }

    @Test
    void aLostAnswerStripesSearchDoesNotShowYetIsReSentUnderItsKeyAndStripesReplaySettlesIt() {
        long lag = Duration.ofMinutes(10).toMillis();
        fx.sim().setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(8000).withLookupLagMs(lag));
        ApiResponse accepted = post(UUID.randomUUID().toString(), body("pm_card_visa"));
        fx.sim().setFaults(Faults.none().withLookupLagMs(lag));
        assertEquals(202, accepted.status(), accepted.body());
        String id = accepted.json().get("id").asText();
        assertNull(fx.state(id).payment().providerPaymentId(), "the answer naming the PaymentIntent was lost");
        int chargesBefore = fx.sim().chargeRequests();
        clock.advance(FIRST_CHECK);

        SweepSummary sweep = fx.sweep();

        // Stripe's search does not show it yet ("none", not "no charge"); the re-send under the
        // payment's own key is answered with Stripe's stored result, never a second charge.
        assertEquals(1, sweep.resent(), sweep::toString);
        assertEquals(chargesBefore + 1, fx.sim().chargeRequests());
        assertEquals(1, sweep.settled().succeeded(), sweep::toString);
        Payment settled = fx.state(id).payment();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(fx.sim().stripe().paymentIntentId(id).orElseThrow(), settled.providerPaymentId());
        assertEquals(1, fx.ledgerOf(id).size());
    }

    /**
     * The charge run's answer was lost, so its client holds a plain 202: the sweep learns from Stripe
     * (its search, or, while search lags, the re-send's replay) that the customer must authenticate,
     * and the payment shows it (requires_action with the client secret) until the customer is done.
     */
    @ParameterizedTest
    @ValueSource(longs = { 0, 600_000 })
    void aLostAnswerThatWaitsForTheCustomerShowsTheCustomerActionTheSweepLearnt(long searchLagMs) {
        fx.sim().setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(8000)
                .withLookupLagMs(searchLagMs));
        String key = UUID.randomUUID().toString();
        String body = body("pm_card_authenticationRequired");
        ApiResponse accepted = post(key, body);
        fx.sim().setFaults(Faults.none().withLookupLagMs(searchLagMs));
        assertEquals(202, accepted.status(), accepted.body());
        assertEquals("pending", accepted.json().get("status").asText(), "the run never saw Stripe's answer");
        String id = accepted.json().get("id").asText();
        String intent = fx.sim().stripe().paymentIntentId(id).orElseThrow();
        clock.advance(FIRST_CHECK);

        SweepSummary learnt = fx.sweep();

        assertEquals(1, learnt.deferred(), learnt::toString);
        assertEquals(searchLagMs > 0 ? 1 : 0, learnt.resent(), "re-sent only while search does not show it");
        ApiResponse shown = charge.call(HttpApiEvents.getPayment(TENANT, id));
        assertEquals("requires_action", shown.json().get("status").asText(), shown.body());
        assertEquals(intent, shown.json().get("providerPaymentId").asText());
        assertTrue(shown.json().get("clientSecret").asText().startsWith(intent + "_secret"), shown.body());
        assertEquals("use_stripe_sdk", shown.json().path("nextAction").path("type").asText(), shown.body());
        ApiResponse replay = post(key, body);
        assertEquals(202, replay.status());
        assertEquals(PaymentViews.asCharged(shown.json()), replay.json(),
                "the replay shows what the customer must do, too");
        SweepSummary again = fx.sweep();
        assertEquals(0, again.deferred() + again.resent(), "not due yet: " + again);

        fx.sim().stripe().authenticate(intent, true);
        clock.advance(NEXT_CHECK);
        SweepSummary settled = fx.sweep();

        assertEquals(1, settled.settled().succeeded(), settled::toString);
        ApiResponse paid = post(key, body);
        assertEquals(201, paid.status(), paid.body());
        assertTrue(paid.json().path("clientSecret").isMissingNode(), "no customer action once settled");
        assertEquals(1, fx.ledgerOf(id).size());
    }
}
