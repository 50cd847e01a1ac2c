package dev.oncepay.refund;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.sim.Faults;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Refunds of one payment released at one instant: the reservation decides, the provider's ledger judges. */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ConcurrentRefundTest extends RefundTestSupport {

    @Test
    void aHundredRefundsOfTenOnAHundredRefundExactlyTenAndRefuseTheRestBeforeTheProvider() throws Exception {
        String paymentId = capturedPayment(100);
        // A slow provider keeps the first refunds in flight while the others arrive.
        sim.setFaults(Faults.none().withLatencyMs(200));
        List<HttpApiEvents> requests = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            requests.add(HttpApiEvents.postRefund(tenant, paymentId, newKey(), amount(10)));
        }

        List<ApiResponse> answers = direct.concurrently(requests);

        Map<Integer, Long> byStatus = answers.stream()
                .collect(Collectors.groupingBy(ApiResponse::status, Collectors.counting()));
        assertEquals(Map.of(201, 10L, 409, 90L), byStatus);
        answers.stream().filter(a -> a.status() == 409).forEach(a -> assertEquals(
                "https://oncepay.dev/problems/refund-exceeds-charge", a.json().get("type").asText(), a.body()));
        assertEquals(10, sim.refundRequests(), "the 90 refused never reached the provider");
        assertEquals(10, providerRefunds(paymentId).size());
        assertEquals(100, held(paymentId));
        assertEquals(10, storedRefunds().size(), "nothing stored for a refused refund");
        assertEquals("refunded", get(paymentId).json().get("refundStatus").asText());
    }

    @Test
    void oneKeySentTwentyTimesAtOnceRefundsOnce() throws Exception {
        String paymentId = capturedPayment(500);
        sim.setFaults(Faults.none().withLatencyMs(300));
        String key = newKey();
        List<HttpApiEvents> requests = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            requests.add(HttpApiEvents.postRefund(tenant, paymentId, key, amount(200)));
        }

        List<ApiResponse> answers = direct.concurrently(requests);

        assertEquals(1, sim.refundRequests(), "one provider call");
        assertEquals(1, answers.stream().filter(a -> a.status() == 201 && a.header("Idempotent-Replayed") == null)
                .count(), "one original answer");
        answers.forEach(a -> assertEquals(true, a.status() == 201 || a.status() == 409, a.body()));
        assertEquals(200, held(paymentId));
    }
}
