package dev.oncepay.reconcile;

import static dev.oncepay.reconcile.ReconcileFixture.body;
import static dev.oncepay.reconcile.ReconcileFixture.paymentId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.reconcile.ReconcileFixture.AtProvider;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.common.WithTestResource;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reconcile function (a real EventBridge event) against a provider with real providers'
 * habits, over HTTP: a charge answer that is not final, a lookup without its list, a lookup
 * that lags behind the charge, a 503 asking for two minutes. None of them may end in "not found"
 * or a second charge; the sweep defers and settles once the provider's answer is readable.
 */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class HostileLookupTest {
    /** The first check of an UNKNOWN payment (oncepay.sweep.first-check-delay) plus a second. */
    private static final Duration FIRST_CHECK = Duration.ofSeconds(31);
    /** The longest deferral in the test profile (backoff cap 1 min) plus a second. */
    private static final Duration NEXT_CHECK = Duration.ofSeconds(61);
    /** Past the provider's idempotency window and margin (24 h + 1 h): where "no charge" would be final. */
    private static final Duration PAST_THE_WINDOW = Duration.ofHours(26);
    /** Far below the 120 s the provider asks for; far above what a sweep of a few payments costs here. */
    private static final Duration PROMPTLY = Duration.ofSeconds(20);

    @Inject
    ReconcileFixture fx;
    @Inject
    TestClock clock;
    @Inject
    ObjectMapper json;

    @BeforeEach
    void reset() {
        fx.reset();
    }

    @Test
    void aProcessingAnswerIs202AndTheSweepSettlesItFromTheLookupWithOneCharge() throws Exception {
        fx.sim().setFaults(Faults.none().withNonFinalRate(1.0)); // stays on: the lookup tells the truth
        String key = UUID.randomUUID().toString();
        String body = body(4200, "order_processing");
        HttpApiResponse accepted = fx.post(key, body);
        assertEquals(202, accepted.statusCode(), accepted.body());
        String id = paymentId(accepted);
        assertEquals(PaymentStatus.UNKNOWN, fx.state(id).payment().status());
        clock.advance(FIRST_CHECK);

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().succeeded(), sweep.toString());
        assertEquals(0, sweep.resent());
        List<LedgerEntry> ledger = fx.ledgerOf(id);
        assertEquals(1, ledger.size(), "exactly one charge");
        Payment settled = fx.state(id).payment();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(ledger.get(0).id(), settled.providerPaymentId());
        HttpApiResponse replay = fx.post(key, body);
        assertEquals(201, replay.statusCode(), replay.body());
        assertEquals("succeeded", json.readTree(replay.body()).get("status").asText());
    }

    @Test
    void aLookupWithoutItsListIsNoAnswerNeverNotFound() {
        // One old enough that "no charge" would be final (FAILED no_charge_at_provider), one young
        // enough that it would be re-sent: neither may read an answer that only looks empty.
        Payment old = fx.unknownPayment(4200, AtProvider.SUCCEEDED);
        clock.advance(PAST_THE_WINDOW);
        Payment young = fx.unknownPayment(990, AtProvider.SUCCEEDED);
        fx.sim().setFaults(Faults.none().withMalformedLookupRate(1.0));
        int chargesBefore = fx.sim().chargeRequests();

        SweepSummary unreadable = fx.sweep();

        assertEquals(2, unreadable.deferred(), unreadable.toString());
        assertEquals(0, unreadable.settled().failed());
        assertEquals(0, unreadable.resent(), "an unreadable lookup is no reason to re-send");
        assertEquals(chargesBefore, fx.sim().chargeRequests());
        assertEquals(2, fx.sim().lookupRequests(), "a 2xx is not retried, even one without its list");
        for (Payment payment : List.of(old, young)) {
            Payment deferred = fx.state(payment.id()).payment();
            assertEquals(PaymentStatus.UNKNOWN, deferred.status());
            assertNull(deferred.declineCode());
        }

        fx.sim().setFaults(Faults.none());
        clock.advance(NEXT_CHECK);
        SweepSummary readable = fx.sweep();

        assertEquals(2, readable.settled().succeeded(), readable.toString());
        for (Payment payment : List.of(old, young)) {
            Payment settled = fx.state(payment.id()).payment();
            assertEquals(PaymentStatus.SUCCEEDED, settled.status());
            assertEquals(fx.ledgerOf(payment.id()).get(0).id(), settled.providerPaymentId());
            assertEquals(1, fx.ledgerOf(payment.id()).size());
        }
    }

    @Test
    void aLaggingLookupDefersAndSettlesOnceTheChargeIsListedWithOneCharge() {
        // The charge executed, but lookups do not list it yet, and the provider answers the
        // re-send with the same key only "processing": nothing final, so nothing is decided.
        String key = UUID.randomUUID().toString();
        String id = paymentId(fx.commitThenTimeout(key, body(1500, "order_lagging"), false));
        fx.sim().setFaults(Faults.none().withLookupLagMs(Duration.ofHours(1).toMillis()).withNonFinalRate(1.0));
        clock.advance(FIRST_CHECK);

        SweepSummary lagging = fx.sweep();

        assertEquals(1, lagging.deferred(), lagging.toString());
        assertEquals(1, lagging.resent(), "re-sent with the payment's own provider key");
        assertEquals(PaymentStatus.UNKNOWN, fx.state(id).payment().status());
        assertEquals(1, fx.ledgerOf(id).size(), "the re-send replayed the key's charge");

        fx.sim().setFaults(Faults.none());
        clock.advance(NEXT_CHECK);
        SweepSummary listed = fx.sweep();

        assertEquals(1, listed.settled().succeeded(), listed.toString());
        assertEquals(0, listed.resent());
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
        assertEquals(1, fx.ledgerOf(id).size(), "still exactly one charge");
    }

    @Test
    void aLaggingLookupOfAYoungChargeSettlesThroughTheSameKeyWithoutASecondCharge() {
        String id = paymentId(fx.commitThenTimeout(UUID.randomUUID().toString(), body(1700, "order_lag"), false));
        fx.sim().setFaults(Faults.none().withLookupLagMs(Duration.ofHours(1).toMillis()));
        clock.advance(FIRST_CHECK);

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().succeeded(), sweep.toString());
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
        assertEquals(fx.ledgerOf(id).get(0).id(), fx.state(id).payment().providerPaymentId());
        assertEquals(1, fx.ledgerOf(id).size(), "the provider replayed the key: one charge");
    }

    @Test
    void aPspAccountWhoseLookupsLagPastTheVisibilityLagSettlesAPendingChargeSucceededNeverFailed() {
        // The run died after the provider executed its charge; the provider's lookups trail by 10 min,
        // twice the 5 min visibility lag, and the account declares 15 min.
        Payment pending = fx.pendingPayment(4200, AtProvider.SUCCEEDED, Duration.ZERO);
        fx.rebind(pending.id(), "sim", ReconcileProfile.LAGGING_ACCOUNT);
        Duration providerLag = Duration.ofMinutes(10);
        fx.sim().setFaults(Faults.none().withLookupLagMs(providerLag.toMillis()));
        int chargesBefore = fx.sim().chargeRequests();
        clock.advance(ReconcileFixture.LEASE.plus(Duration.ofMinutes(5)).plusSeconds(1));

        SweepSummary pastTheVisibilityLag = fx.sweep();

        assertEquals(1, pastTheVisibilityLag.deferred(), pastTheVisibilityLag.toString());
        assertEquals(0, pastTheVisibilityLag.settled().failed(), "an empty lookup inside the account's lag proves nothing");
        Payment waiting = fx.state(pending.id()).payment();
        assertEquals(PaymentStatus.PENDING, waiting.status());
        assertEquals(pending.leaseExpiresAt().plus(ReconcileProfile.LAGGING_LOOKUP_LAG).toEpochMilli(),
                fx.state(pending.id()).nextCheckAt().toEpochMilli(), "looked at again once the account's lag has passed");

        // The provider's 10 min have passed (the simulator keeps real time: its lag ends when turned off).
        fx.sim().setFaults(Faults.none());
        clock.advance(providerLag);
        SweepSummary listed = fx.sweep();

        assertEquals(1, listed.settled().succeeded(), listed.toString());
        Payment settled = fx.state(pending.id()).payment();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(fx.ledgerOf(pending.id()).get(0).id(), settled.providerPaymentId());
        assertEquals(1, fx.ledgerOf(pending.id()).size(), "one charge");
        assertEquals(chargesBefore, fx.sim().chargeRequests(), "a PENDING payment is only asked about, never sent");
    }

    @Test
    void lookupsAnswered503WithTwoMinutesRetryAfterDoNotStallTheSweep() {
        List<Payment> due = List.of(fx.unknownPayment(100, AtProvider.SUCCEEDED),
                fx.unknownPayment(200, AtProvider.SUCCEEDED), fx.unknownPayment(300, AtProvider.SUCCEEDED));
        fx.sim().setFaults(Faults.none().withOutage(true).withServerErrorRetryAfterSeconds(120));

        long started = System.nanoTime();
        SweepSummary sweep = fx.sweep();
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);

        assertEquals(3, sweep.deferred(), sweep.toString());
        assertTrue(elapsed.compareTo(PROMPTLY) < 0, "the sweep took " + elapsed);
        assertEquals(3, fx.sim().lookupRequests(), "one lookup each: a 2-minute wait never fits");
        for (Payment payment : due) {
            assertEquals(PaymentStatus.UNKNOWN, fx.state(payment.id()).payment().status());
        }

        fx.sim().setFaults(Faults.none());
        clock.advance(NEXT_CHECK);
        assertEquals(3, fx.sweep().settled().succeeded());
    }
}
