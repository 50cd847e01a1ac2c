package dev.oncepay.reconcile;

import static dev.oncepay.reconcile.ReconcileFixture.body;
import static dev.oncepay.reconcile.ReconcileFixture.paymentId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.reconcile.ReconcileFixture.AtProvider;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaultProxy;
import dev.oncepay.testkit.StoreFaults;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweep when the store fails: it survives, counts the errors and leaves the payments
 * due for the next sweep; and a payment whose settle write failed after the provider call (the
 * client got a 202) stays in the sweep and is settled by it.
 */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ReconcileStoreFailureTest {
    /** Twice the charge lease (35 s) plus a second: when a stuck PENDING payment becomes due. */
    private static final Duration PENDING_DUE = Duration.ofSeconds(71);

    @Inject
    ReconcileFixture fx;
    @Inject
    TestClock clock;

    StoreFaultProxy store;

    @BeforeEach
    void reset() {
        store = TestEnvironment.storeProxy();
        store.reset();
        fx.reset();
    }

    @AfterEach
    void healthyStore() {
        store.reset();
    }

    @Test
    void aStoreOutageFailsTheSweepSoftlyAndLeavesThePaymentDue() {
        Payment unknown = fx.unknownPayment(4200, AtProvider.SUCCEEDED);
        store.set(StoreFaults.none().withOutage(true));

        Instant start = Instant.now();
        SweepSummary failed = fx.sweep();

        assertTrue(failed.errors() > 0, "errors counted: " + failed);
        assertEquals(0, failed.settled().total());
        assertTrue(Duration.between(start, Instant.now()).compareTo(Duration.ofSeconds(20)) < 0,
                "a dead store does not hold the sweep for long");
        store.reset();
        assertEquals(PaymentStatus.UNKNOWN, fx.state(unknown.id()).payment().status());
        assertTrue(fx.state(unknown.id()).dueAt(clock.instant()), "still due");

        SweepSummary recovered = fx.sweep();
        assertEquals(1, recovered.settled().succeeded(), recovered::toString);
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(unknown.id()).payment().status());
    }

    @Test
    void aFailingSettleWriteIsCountedAndRetriedByTheNextSweep() {
        Payment unknown = fx.unknownPayment(4200, AtProvider.SUCCEEDED);
        store.failNext("UpdateItem", "payment#", StoreFault.SERVER_ERROR, 3);

        SweepSummary failed = fx.sweep();

        assertEquals(1, failed.examined());
        assertEquals(1, failed.errors(), failed::toString);
        assertEquals(PaymentStatus.UNKNOWN, fx.state(unknown.id()).payment().status());
        assertTrue(fx.state(unknown.id()).dueAt(clock.instant()), "left due, untouched");

        SweepSummary recovered = fx.sweep();
        assertEquals(1, recovered.settled().succeeded(), recovered::toString);
        assertEquals(1, fx.ledgerOf(unknown.id()).size());
    }

    @Test
    void aChargeWhoseSettleWriteFailedAfterTheProviderCallIsSettledByTheSweep() {
        store.failNext("UpdateItem", "payment#", StoreFault.SERVER_ERROR, 3);
        HttpApiResponse accepted = fx.post(UUID.randomUUID().toString(), body(4200, "order_settle_lost"));
        assertEquals(202, accepted.statusCode(), accepted::body);
        String id = paymentId(accepted);
        assertEquals(PaymentStatus.PENDING, fx.state(id).payment().status());
        assertEquals(1, fx.ledgerOf(id).size(), "the provider charged it");

        clock.advance(PENDING_DUE);
        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().succeeded(), sweep::toString);
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
        assertEquals(1, fx.ledgerOf(id).size(), "settled from the provider's record, not charged again");
    }
}
