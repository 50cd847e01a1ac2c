package dev.oncepay.refund;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.sim.Faults;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Refunds of a Stripe tenant's payments through the charge function, against the simulator's
 * Stripe mode (the Refunds API over HTTP, field by field); its ledger says what was refunded.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeRefundTest extends RefundTestSupport {

    @BeforeEach
    void stripeTenant() {
        tenant = "merchant-stripe";
    }

    private String capturedIntent(long amount) {
        ApiResponse charged = post(newKey(), "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"order_"
                + UUID.randomUUID() + "\",\"paymentMethod\":\"pm_card_visa\"}");
        assertEquals(201, charged.status(), charged.body());
        return charged.json().get("id").asText();
    }

    @Test
    void aStripeRefundIsSentWithTheRefundsKeyAndReadFromItsRefundObject() {
        String paymentId = capturedIntent(4_200);

        ApiResponse refunded = refund(paymentId, newKey(), "{\"amount\":1200,\"reason\":\"returned\"}");

        assertEquals(201, refunded.status(), refunded.body());
        String refundId = refunded.json().get("id").asText();
        List<dev.oncepay.sim.Refund> atStripe = providerRefunds(paymentId);
        assertEquals(1, atStripe.size());
        assertTrue(atStripe.get(0).id().startsWith("re_"), atStripe.get(0).id());
        assertEquals(refundId, atStripe.get(0).reference(), "our refund id in the refund's metadata");
        assertEquals("oncepay-" + refundId, atStripe.get(0).idempotencyKey());
        assertEquals(atStripe.get(0).id(), refunded.json().get("providerRefundId").asText());

        ApiResponse tooMuch = refund(paymentId, newKey(), amount(3_001));
        assertEquals(409, tooMuch.status(), "refused by the reservation before Stripe is asked");
        assertEquals(3_000, tooMuch.json().get("amountRefundable").asLong());
        assertEquals(201, refund(paymentId, newKey(), "{}").status(), "the 3 000 left");
        assertEquals(4_200, providerRefunds(paymentId).stream().mapToLong(dev.oncepay.sim.Refund::amount).sum());
    }

    @Test
    void aPendingStripeRefundIsSettledByTheSweepFromTheIntentsRefundList() {
        String paymentId = capturedIntent(2_000);
        sim.setFaults(Faults.none().withNonFinalRate(1.0).withRefundSettleMs(50));

        ApiResponse pending = refund(paymentId, newKey(), amount(2_000));

        assertEquals(202, pending.status(), pending.body());
        String refundId = pending.json().get("id").asText();
        assertTrue(pending.json().get("providerRefundId").asText().startsWith("re_"), "Stripe named it");
        sim.setFaults(Faults.none());
        await(() -> providerRefunds(paymentId).get(0).status() == dev.oncepay.sim.RefundStatus.SUCCEEDED);

        clock.advance(Duration.ofMinutes(2));
        sweepRefunds(Set.of(refundId));

        JsonNode settled = showRefund(paymentId, refundId).json();
        assertEquals("succeeded", settled.get("status").asText(), settled.toString());
        assertEquals(1, providerRefunds(paymentId).size());
    }

    private static void await(java.util.function.BooleanSupplier done) {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("the simulator never settled the refund");
            }
            Thread.onSpinWait();
        }
    }
}
