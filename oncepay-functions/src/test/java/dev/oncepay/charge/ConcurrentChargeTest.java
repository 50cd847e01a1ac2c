package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.sim.Faults;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Identical requests fired at the same instant: the provider's ledger is the judge. */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ConcurrentChargeTest extends ChargeTestSupport {
    private static final int REQUESTS = 30;

    @Test
    void thirtyIdenticalRequestsAtOnceChargeExactlyOnce() throws Exception {
        // A slow provider keeps the first request in flight while the others arrive.
        sim.setFaults(Faults.none().withLatencyMs(300));
        String key = newKey();
        String body = body(4200, "EUR", "order_race");

        List<ApiResponse> answers = direct.concurrently(
                Collections.nCopies(REQUESTS, HttpApiEvents.postPayment(tenant, key, body)));

        assertEquals(1, sim.ledger().size(), "exactly one charge executed");
        Map<Integer, Long> byStatus = answers.stream()
                .collect(Collectors.groupingBy(ApiResponse::status, Collectors.counting()));
        assertTrue(only201Or409(byStatus), "only the answer or 409, got " + byStatus);
        List<ApiResponse> successes = answers.stream().filter(a -> a.status() == 201).toList();
        assertEquals(1, successes.stream().filter(a -> a.header("Idempotent-Replayed") == null).count(),
                "exactly one original answer");
        assertEquals(1, successes.stream().map(ApiResponse::body).distinct().count(), "all 201s are the same answer");
        answers.stream().filter(a -> a.status() == 409).forEach(a -> assertEquals("1", a.header("Retry-After")));

        ApiResponse after = post(key, body);
        assertEquals(201, after.status());
        assertEquals(successes.get(0).body(), after.body());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void differentKeysAtOnceAreIndependentPayments() throws Exception {
        List<HttpApiEvents> events = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            events.add(HttpApiEvents.postPayment(tenant, newKey(), body(100 + i, "EUR", "order_" + i)));
        }
        List<ApiResponse> answers = direct.concurrently(events);

        assertTrue(answers.stream().allMatch(a -> a.status() == 201));
        assertEquals(10, answers.stream().map(a -> a.json().get("id").asText()).distinct().count());
        assertEquals(10, sim.ledger().size());
        assertEquals(10, sim.ledger().stream().map(e -> e.idempotencyKey()).collect(
                Collectors.toMap(Function.identity(), k -> 1, Integer::sum)).size());
    }

    private static boolean only201Or409(Map<Integer, Long> byStatus) {
        return byStatus.keySet().stream().allMatch(s -> s == 201 || s == 409) && byStatus.containsKey(201);
    }
}
