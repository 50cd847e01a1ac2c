package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.contract.Metrics;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.sim.Faults;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.Optional;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Retry at one layer, only what is safe: connection errors, 408, 429 (Retry-After honoured) and
 * 5xx, always with the same provider idempotency key; never other 4xx, never a timeout or reset.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ProviderRetryPolicyTest extends ChargeTestSupport {
    @Inject
    ProviderGateway gateway;

    @Inject
    RecordingMetrics metrics;


    @Test
    void serverErrorsAreRetriedWithTheSameProviderKey() {
        sim.scriptChargeAnswers(500, 502, 503);
        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_5xx"));

        assertEquals(201, answer.status());
        assertEquals(4, sim.chargeRequests(), "three 5xx, then the charge");
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void requestTimeoutIsRetried() {
        sim.scriptChargeAnswers(408);
        assertEquals(201, post(newKey(), body(4200, "EUR", "order_408")).status());
        assertEquals(2, sim.chargeRequests());
    }

    @Test
    void rateLimitIsRetriedAfterTheProvidersRetryAfter() {
        sim.setFaults(Faults.none().withRetryAfterSeconds(1));
        sim.scriptChargeAnswers(429, 429);
        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_429"));

        assertEquals(201, answer.status());
        List<Instant> arrivals = sim.chargeArrivals();
        assertEquals(3, arrivals.size());
        for (int i = 1; i < arrivals.size(); i++) {
            Duration gap = Duration.between(arrivals.get(i - 1), arrivals.get(i));
            assertTrue(gap.compareTo(Duration.ofMillis(950)) >= 0, "waited " + gap + " < Retry-After 1 s");
        }
    }

    @Test
    void badRequestIsNeverRetried() {
        sim.scriptChargeAnswers(400);
        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_400"));

        assertEquals(402, answer.status());
        assertEquals("provider_rejected_400", answer.json().get("declineCode").asText());
        assertEquals(1, sim.chargeRequests());
    }

    @Test
    void paymentRequiredIsNeverRetried() {
        sim.scriptChargeAnswers(402);
        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_402"));

        assertEquals(402, answer.status());
        assertEquals("card_declined", answer.json().get("declineCode").asText());
        assertEquals(1, sim.chargeRequests());
    }

    @Test
    void persistentServerErrorsEndUnknownNotFailed() {
        sim.setFaults(Faults.none().withServerErrorRate(1.0));
        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_down"));

        assertEquals(202, answer.status(), "a 5xx may have executed: only the provider can say");
        assertEquals(4, sim.chargeRequests(), "1 attempt + 3 retries");
    }

    @Test
    void aConnectionResetAfterSendIsUnknownAndNotRetried() {
        sim.setFaults(Faults.none().withResetRate(1.0));
        ApiResponse answer = post(newKey(), body(4200, "EUR", "order_reset"));

        assertEquals(202, answer.status());
        assertEquals(1, sim.chargeRequests());
    }

    @Test
    void theBreakerOpensAtItsThresholdAndThenFailsFastWithoutProviderCalls() {
        sim.setFaults(Faults.none().withServerErrorRate(1.0));
        metrics.reset();
        post(newKey(), body(100, "EUR", "order_trip"));
        assertEquals(Optional.of(ProviderRefusal.BREAKER_OPEN), gateway.chargeRefusal(new ProviderAccount("sim", "default")));
        assertEquals(1, metrics.counted(Metrics.BREAKER_OPEN), "the opening is a metric the alarm watches");
        int calls = sim.chargeRequests();

        for (int i = 0; i < 5; i++) {
            assertEquals(503, post(newKey(), body(100, "EUR", "order_fast_" + i)).status());
        }
        assertEquals(calls, sim.chargeRequests(), "no call reaches the provider while the breaker is open");
    }
}
