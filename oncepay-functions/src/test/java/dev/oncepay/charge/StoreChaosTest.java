package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaults;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Many keys, each sent twice at the same instant, against a store that throttles, fails and loses
 * answers at random (seeded): every answer is one the contract defines, no key is ever charged
 * twice, and once the store is healthy every key completes with exactly one charge.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StoreChaosTest extends ChargeTestSupport {
    private static final int KEYS = 12;
    private static final Set<Integer> DEFINED = Set.of(201, 202, 409, 503);

    @BeforeEach
    void hostileStore() {
        store.set(StoreFaults.none().withThrottleRate(0.1).withServerErrorRate(0.1).withLostAnswerRate(0.25));
    }

    @Test
    void hostileStoreNeverChargesAKeyTwiceNorAnswersOutsideTheContract() throws Exception {
        List<String> keys = new ArrayList<>();
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (int i = 0; i < KEYS; i++) {
            String key = newKey();
            keys.add(key);
            HttpApiEvents event = HttpApiEvents.postPayment(tenant, key, body(100 + i, "EUR", "order_chaos_" + i));
            for (ApiResponse answer : direct.concurrently(List.of(event, event))) {
                statuses.merge(answer.status(), 1, Integer::sum);
                assertTrue(DEFINED.contains(answer.status()), "an answer the contract defines: " + answer);
            }
        }
        long injected = store.injected(StoreFault.THROTTLE) + store.injected(StoreFault.SERVER_ERROR)
                + store.injected(StoreFault.LOST_ANSWER);
        System.out.println("hostile store: answers by status " + statuses + ", faults injected " + injected);
        assertTrue(injected > 0, "the store really was hostile");
        assertNoPaymentChargedTwice();

        // Healthy again, and every lease over: each client's retry with its key completes.
        store.reset();
        clock.advance(lease.plusSeconds(1));
        for (int i = 0; i < KEYS; i++) {
            ApiResponse done = post(keys.get(i), body(100 + i, "EUR", "order_chaos_" + i));
            assertEquals(201, done.status(), done::toString);
        }
        assertNoPaymentChargedTwice();
        assertEquals(KEYS, sim.ledger().size(), "exactly one charge per key");
    }

    private void assertNoPaymentChargedTwice() {
        Map<String, Long> chargesPerPayment = sim.ledger().stream()
                .collect(Collectors.groupingBy(LedgerEntry::reference, Collectors.counting()));
        assertTrue(chargesPerPayment.values().stream().allMatch(n -> n == 1), "charges per payment: " + chargesPerPayment);
        // Every charged payment belongs to a distinct key: amounts are unique per key here.
        Map<Long, Long> chargesPerAmount = sim.ledger().stream()
                .collect(Collectors.groupingBy(LedgerEntry::amount, Collectors.counting()));
        assertTrue(chargesPerAmount.values().stream().allMatch(n -> n == 1), "charges per key: " + chargesPerAmount);
    }
}
