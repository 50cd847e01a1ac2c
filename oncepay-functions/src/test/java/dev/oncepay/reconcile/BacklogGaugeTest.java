package dev.oncepay.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Metrics;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ReviewReason;
import dev.oncepay.payment.Transition;
import dev.oncepay.reconcile.ReconcileFixture.AtProvider;
import dev.oncepay.sim.Faults;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweep's backlog gauges count the whole attention index, not the payments one sweep finds
 * due: more UNKNOWN payments than a batch, PENDING payments only once the sweep would look at them
 * (twice the charge lease after creation), NEEDS_REVIEW payments, which no sweep looks at, and
 * FAILED payments whose provider cancel is pending until the provider confirms it.
 */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class BacklogGaugeTest {
    /** oncepay.reconcile.batch-size in {@link ReconcileProfile}. */
    private static final int BATCH = 8;
    private static final Duration LATER = Duration.ofMinutes(5);

    @Inject
    ReconcileFixture fx;
    @Inject
    TestClock clock;
    @Inject
    RecordingMetrics metrics;
    @Inject
    PaymentRepository payments;

    @BeforeEach
    void reset() {
        fx.reset();
        metrics.reset();
    }

    @AfterEach
    void healthyStore() {
        TestEnvironment.storeProxy().reset();
    }

    @Test
    void theGaugesCountTheWholeIndexNotTheSweepsBatch() {
        Instant start = clock.instant();
        int unknown = BATCH + 3;
        for (int i = 0; i < unknown; i++) {
            fx.unknownPayment(1000 + i, AtProvider.NOTHING); // all due now
        }
        for (int i = 0; i < 3; i++) {
            fx.pendingPayment(2000 + i, AtProvider.NOTHING, Duration.ofHours(1)); // stuck, not due for the sweep yet
        }
        for (int i = 0; i < 2; i++) {
            inReview(fx.unknownPayment(3000 + i, AtProvider.NOTHING));
        }
        Payment canceled = failedCancelPending(fx.pendingPayment(5000, AtProvider.NOTHING, Duration.ZERO));
        for (int i = 1; i < 3; i++) {
            failedCancelPending(fx.pendingPayment(5000 + i, AtProvider.NOTHING, Duration.ZERO));
        }
        assertTrue(payments.confirmCancel(canceled.id(), canceled.providerPaymentId(), Actor.SWEEP, "canceled (test)",
                clock.instant()));
        clock.advance(LATER);
        for (int i = 0; i < 4; i++) {
            fx.pendingPayment(4000 + i, AtProvider.NOTHING, Duration.ofHours(1)); // young: its charge run may still answer
        }
        fx.sim().setFaults(Faults.none().withOutage(true)); // no lookup answers: the UNKNOWN payments stay

        SweepSummary sweep = fx.sweep();

        assertEquals(BATCH, sweep.examined(), "one sweep looks at one batch: " + sweep);
        assertEquals(unknown, metrics.lastGauge(Metrics.UNKNOWN_BACKLOG), "every UNKNOWN payment, due or not, in any shard");
        assertEquals(3.0, metrics.lastGauge(Metrics.PENDING_BACKLOG), "only PENDING payments the sweep would look at");
        assertEquals(2.0, metrics.lastGauge(Metrics.NEEDS_REVIEW_BACKLOG));
        assertEquals(2.0, metrics.lastGauge(Metrics.CANCEL_PENDING_BACKLOG),
                "FAILED payments whose cancel is pending, not one whose cancel the provider confirmed");
        long age = Duration.between(start, clock.instant()).toSeconds();
        assertInRange(LATER.toSeconds(), age, metrics.lastGauge(Metrics.UNKNOWN_OLDEST_AGE));
        assertInRange(LATER.toSeconds(), age, metrics.lastGauge(Metrics.PENDING_OLDEST_AGE));
        assertEquals(BATCH, metrics.values(Metrics.PROVIDER_LATENCY,
                Map.of(Metrics.DIM_OPERATION, "lookup", Metrics.DIM_OUTCOME, "failed")).size(),
                "each lookup timed as failed (the breaker's refusals too)");
        assertTrue(metrics.counted(Metrics.PROVIDER_RETRIES, Map.of(Metrics.DIM_OPERATION, "lookup")) > 0,
                "the 503s were retried before the breaker opened");
    }

    @Test
    void anEmptyIndexReadsZeroEverywhere() {
        fx.pendingPayment(500, AtProvider.NOTHING, Duration.ofHours(1)); // created just now: not yet stuck

        fx.sweep();

        assertEquals(0.0, metrics.lastGauge(Metrics.UNKNOWN_BACKLOG));
        assertEquals(0.0, metrics.lastGauge(Metrics.UNKNOWN_OLDEST_AGE));
        assertEquals(0.0, metrics.lastGauge(Metrics.PENDING_BACKLOG));
        assertEquals(0.0, metrics.lastGauge(Metrics.PENDING_OLDEST_AGE));
        assertEquals(0.0, metrics.lastGauge(Metrics.NEEDS_REVIEW_BACKLOG));
        assertEquals(0.0, metrics.lastGauge(Metrics.CANCEL_PENDING_BACKLOG));
    }

    @Test
    void anUnreadableIndexEmitsNoGaugeRatherThanAFalseZeroAndTheSweepGoesOn() {
        Payment payment = fx.unknownPayment(600, AtProvider.SUCCEEDED);
        // Every read of the attention index fails (the SDK's retries included); the sweep index answers.
        TestEnvironment.storeProxy().failNext("Query", "\"" + Table.ATTENTION_INDEX + "\"", StoreFault.SERVER_ERROR, 100);

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().succeeded(), sweep::toString);
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(payment.id()).payment().status());
        for (String gauge : new String[] {Metrics.UNKNOWN_BACKLOG, Metrics.UNKNOWN_OLDEST_AGE, Metrics.PENDING_BACKLOG,
                Metrics.PENDING_OLDEST_AGE, Metrics.NEEDS_REVIEW_BACKLOG, Metrics.CANCEL_PENDING_BACKLOG}) {
            assertNull(metrics.lastGauge(gauge), gauge + ": a missing point leaves an alarm as it was; a zero would clear it");
        }
    }

    private void inReview(Payment unknown) {
        Instant now = clock.instant();
        assertTrue(payments.apply(unknown.id(), unknown.tenant(), Transition.toReview(PaymentStatus.UNKNOWN, null,
                "conflicting facts (test)", ReviewReason.CONFLICTING_FACTS), Actor.SWEEP, now));
    }

    /**
     * Records {@code pending} as declined with its provider charge still open (cancel pending), the
     * sweep's cancel not due within the test.
     */
    private Payment failedCancelPending(Payment pending) {
        Instant now = clock.instant();
        String charge = "pi_test_" + pending.id();
        assertTrue(payments.apply(pending.id(), pending.tenant(), Transition.failedCancelPending(PaymentStatus.PENDING, charge,
                "card_declined", "declined (test)", now.plus(Duration.ofHours(1)), OptionalLong.empty()), Actor.SWEEP, now));
        return payments.find(pending.id()).orElseThrow();
    }

    private static void assertInRange(long low, long high, Double value) {
        assertTrue(value != null && value >= low && value <= high, () -> value + " not in [" + low + ", " + high + "]");
    }
}
