package dev.oncepay.wallet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaultProxy;
import dev.oncepay.testkit.StoreFaults;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Debits, each sent twice at the same instant, against a store that throttles, fails and loses
 * answers at random (seeded), SDK retries included: every answer is one the contract defines, and
 * once the store is healthy every key settles to exactly one outcome, the balance never below
 * zero and equal to the sum of its entries.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WalletStoreChaosTest extends WalletTestSupport {
    private static final int KEYS = 16;
    private static final Set<Integer> DEFINED = Set.of(201, 402, 409, 503);

    @Test
    void aHostileStoreNeverAppliesADebitTwiceNorAnswersOutsideTheContract() throws Exception {
        assertEquals(201, credit(newKey(), 80).status());
        StoreFaultProxy store = TestEnvironment.storeProxy();
        store.set(StoreFaults.none().withThrottleRate(0.1).withServerErrorRate(0.1).withLostAnswerRate(0.25));

        List<String> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            String key = newKey();
            keys.add(key);
            HttpApiEvents event = debitEvent(key, 10);
            for (ApiResponse answer : direct.concurrently(List.of(event, event))) {
                assertTrue(DEFINED.contains(answer.status()), "an answer the contract defines: " + answer);
            }
        }
        long injected = store.injected(StoreFault.THROTTLE) + store.injected(StoreFault.SERVER_ERROR)
                + store.injected(StoreFault.LOST_ANSWER);
        assertTrue(injected > 0, "the store really was hostile");

        store.reset();
        clock.advance(lease.plusSeconds(1));
        int applied = 0;
        for (String key : keys) {
            ApiResponse settled = direct.call(debitEvent(key, 10));
            assertTrue(Set.of(201, 402).contains(settled.status()), settled::body);
            applied += settled.status() == 201 ? 1 : 0;
        }
        assertEquals(8, applied, "exactly the balance's worth");
        assertEquals(0, assertConsistent());
        assertEquals(9, allEntries(50).size(), "each key applied at most once");
    }
}
