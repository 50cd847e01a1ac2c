package dev.oncepay.refund;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * Refunds have the fleet's breaker and bulkhead of their own operation per provider account: a
 * refund breaker another sandbox opened, or a refund bulkhead other sandboxes fill, refuses refunds
 * before any write or provider call, and leaves the account's charges alone.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class RefundFleetProtectionTest extends RefundTestSupport {
    private static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");

    @Test
    void anOpenRefundBreakerRefusesRefundsAndNotCharges() {
        String paymentId = capturedPayment(2_000);
        breakers.openFromAnotherSandbox(ACCOUNT, ProviderOperation.REFUND);
        breakers.readAgainHere();
        int before = storedItems().size();

        ApiResponse refused = refund(paymentId, newKey(), amount(500));

        assertEquals(503, refused.status(), refused.body());
        assertEquals("https://oncepay.dev/problems/provider-unavailable", refused.json().get("type").asText());
        assertEquals(0, sim.refundRequests());
        assertEquals(before, storedItems().size(), "nothing written");
        assertEquals(201, post(newKey(), body(700, "EUR", "order-" + newKey())).status(), "charges go on");
    }

    @Test
    void aFullRefundBulkheadRefusesRefundsAtCapacity() throws Exception {
        String paymentId = capturedPayment(2_000);
        Runnable end = breakers.fillFromOtherSandboxes(ACCOUNT, ProviderOperation.REFUND);
        try {
            breakers.readAgainHere();
            ApiResponse refused = refund(paymentId, newKey(), amount(500));

            assertEquals(503, refused.status(), refused.body());
            assertEquals("https://oncepay.dev/problems/provider-at-capacity", refused.json().get("type").asText());
            assertEquals(0, sim.refundRequests());
            assertEquals(0, held(paymentId));
        } finally {
            end.run();
        }
    }
}
