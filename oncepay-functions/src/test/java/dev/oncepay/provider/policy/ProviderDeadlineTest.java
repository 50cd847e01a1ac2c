package dev.oncepay.provider.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.OutOfTimeProviderFault;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every wait fits the deadline (design rule 12), at the gateway with an explicit deadline as the
 * reconcile sweep passes it, against the simulator over HTTP. In the test profile an attempt may
 * take up to 3 s (charge) or 5 s (lookup), a charge call 8 s; the provider's Retry-After is
 * honoured up to 2 s.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ProviderDeadlineTest {
    /** Far below the 120 s asked for, far above what ending at once costs on a loaded machine. */
    private static final Duration PROMPTLY = Duration.ofSeconds(20);

    @Inject
    ProviderGateway gateway;
    @Inject
    TestClock clock;
    @Inject
    FleetBreakers breakers;

    private PspSimulator sim;

    @BeforeEach
    void cleanSlate() {
        sim = TestEnvironment.simulator();
        sim.reset();
        clock.reset();
        breakers.resetAll();
    }

    @Test
    void noAttemptStartsThatCouldNotEndBeforeTheDeadline() {
        Payment payment = payment();
        Instant soon = clock.instant().plusSeconds(1);

        ChargeResult charge = gateway.charge(payment, soon);
        assertThrows(OutOfTimeProviderFault.class, () -> gateway.chargesFor(payment, soon));

        assertEquals(ProviderOutcome.NOT_SENT, charge.outcome(), charge::toString);
        assertEquals(0, sim.chargeRequests());
        assertEquals(0, sim.lookupRequests());
        assertThrows(OutOfTimeProviderFault.class, () -> gateway.chargesFor(payment, clock.instant().minusSeconds(5)));
    }

    @Test
    void aRetryAfterLongerThanTheBudgetEndsTheRetriesAtOnce() {
        sim.setFaults(Faults.none().withOutage(true).withServerErrorRetryAfterSeconds(120));
        Payment payment = payment();

        long started = System.nanoTime();
        ChargeResult charge = gateway.charge(payment, clock.instant().plusSeconds(40));
        OutOfTimeProviderFault lookup = assertThrows(OutOfTimeProviderFault.class,
                () -> gateway.chargesFor(payment, clock.instant().plusSeconds(40)));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);

        assertEquals(ProviderOutcome.UNKNOWN, charge.outcome(), "a 503 may have executed: " + charge);
        assertTrue(lookup.getMessage().contains("120"), lookup.getMessage());
        assertEquals(1, sim.chargeRequests());
        assertEquals(1, sim.lookupRequests());
        assertTrue(elapsed.compareTo(PROMPTLY) < 0, "waited " + elapsed);
    }

    @Test
    void aThrottleLongerThanTheBudgetIsNotSent() {
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(120));

        ChargeResult charge = gateway.charge(payment(), clock.instant().plusSeconds(40));

        assertEquals(ProviderOutcome.NOT_SENT, charge.outcome(), "a 429 refuses before execution: " + charge);
        assertEquals(1, sim.chargeRequests());
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void retriesStopWhenTheWaitAndTheNextAttemptWouldNotFit() {
        // Each 503 asks for 1 s. Attempt 1 ends at ~0 s, attempt 2 at ~1 s: each leaves room for
        // 1 s + a 3 s attempt before 5.8 s. Attempt 3 ends at >= 2 s: 2 + 1 + 3 > 5.8, so it is the last.
        sim.setFaults(Faults.none().withServerErrorRetryAfterSeconds(1));
        sim.scriptChargeAnswers(503, 503, 503, 503);
        Instant deadline = clock.instant().plusMillis(5800);

        ChargeResult charge = gateway.charge(payment(), deadline);

        assertEquals(ProviderOutcome.UNKNOWN, charge.outcome(), charge::toString);
        assertEquals(3, sim.chargeRequests(), "the fourth attempt could not have ended before the deadline");
        assertTrue(clock.instant().isBefore(deadline), "returned after the deadline");
    }

    @Test
    void aRetryAfterThatFitsIsHonoured() {
        sim.setFaults(Faults.none().withServerErrorRetryAfterSeconds(1));
        sim.scriptChargeAnswers(503);

        ChargeResult charge = gateway.charge(payment());

        assertEquals(ProviderOutcome.SUCCEEDED, charge.outcome(), charge::toString);
        assertEquals(2, sim.chargeRequests());
        Duration gap = Duration.between(sim.chargeArrivals().get(0), sim.chargeArrivals().get(1));
        assertTrue(gap.compareTo(Duration.ofMillis(950)) >= 0, "waited only " + gap);
        assertEquals(1, sim.ledger().size());
    }

    private Payment payment() {
        Instant now = clock.instant();
        String id = "pay_" + UUID.randomUUID().toString().replace("-", "");
        return new Payment(id, "merchant-deadline", PaymentStatus.PENDING, 4200, "EUR", "order-" + id.substring(4, 12),
                null, null, null, null, now, now, 1, 0, new ProviderAccount("sim", "default"), now.plusSeconds(35), null, null);
    }
}
