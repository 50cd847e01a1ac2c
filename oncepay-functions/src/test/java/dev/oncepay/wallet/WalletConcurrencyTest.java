package dev.oncepay.wallet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Table;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Debits racing on one wallet, released together (one latch, as from many Lambda sandboxes): the
 * store's condition alone decides, so exactly the balance's worth succeeds and it never goes below zero.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WalletConcurrencyTest extends WalletTestSupport {
    private static final int DEBITS = 50;

    @Test
    void fiftyConcurrentDebitsOfTenOnAHundredSucceedExactlyTenTimes() throws Exception {
        assertEquals(201, credit(newKey(), 100).status());
        List<HttpApiEvents> debits = new ArrayList<>();
        for (int i = 0; i < DEBITS; i++) {
            debits.add(debitEvent(newKey(), 10));
        }

        List<ApiResponse> answers = direct.concurrently(debits);

        Map<Integer, Integer> statuses = new HashMap<>();
        for (int i = 0; i < DEBITS; i++) {
            ApiResponse settled = settled(debits.get(i), List.of(answers.get(i)));
            statuses.merge(settled.status(), 1, Integer::sum);
            if (settled.status() == 402) {
                assertEquals(0, settled.json().get("balance").asLong(), "refused only once nothing was left");
            }
        }
        assertEquals(Map.of(201, 10, 402, 40), statuses);
        assertEquals(0, assertConsistent());
        assertEquals(11, allEntries(50).size());
        // Every operation has its item (applied or refused), one each: the key is done.
        assertEquals(DEBITS + 1, storedItems(Table.KIND_WALLET_OPERATION).size());
    }

    @Test
    void duplicatesOfEachKeyMixedInApplyEachKeyAtMostOnceAndReplayIdentically() throws Exception {
        assertEquals(201, credit(newKey(), 100).status());
        List<String> keys = new ArrayList<>();
        List<HttpApiEvents> events = new ArrayList<>();
        List<String> keyOfEvent = new ArrayList<>();
        for (int i = 0; i < DEBITS; i++) {
            String key = newKey();
            keys.add(key);
            for (int copy = 0; copy < 2; copy++) {
                events.add(debitEvent(key, 10));
                keyOfEvent.add(key);
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(13));
        List<HttpApiEvents> shuffled = order.stream().map(events::get).toList();

        List<ApiResponse> answers = direct.concurrently(shuffled);

        Map<String, List<ApiResponse>> byKey = new HashMap<>();
        for (int i = 0; i < answers.size(); i++) {
            byKey.computeIfAbsent(keyOfEvent.get(order.get(i)), k -> new ArrayList<>()).add(answers.get(i));
        }
        int applied = 0;
        for (String key : keys) {
            applied += settled(debitEvent(key, 10), byKey.get(key)).status() == 201 ? 1 : 0;
        }
        assertEquals(10, applied, "exactly the balance's worth, each key once");
        assertEquals(0, assertConsistent());
        assertEquals(11, allEntries(50).size());
        assertEquals(DEBITS + 1, storedItems(Table.KIND_WALLET_OPERATION).size());
    }

    /**
     * The one outcome recorded for the key of {@code debit}, once every run is done: each of the
     * key's concurrent answers is that outcome byte for byte, or said to retry — 409 (in flight)
     * or 503 (the store timed out: two cores serve a hundred requests at once here). A key whose
     * run gave up is resumed by its retry after the lease, as a client's would be.
     */
    private ApiResponse settled(HttpApiEvents debit, List<ApiResponse> concurrent) {
        ApiResponse settled = direct.call(debit);
        if (settled.status() == 409 || settled.status() == 503) {
            clock.advance(lease.plusSeconds(1));
            settled = direct.call(debit);
        }
        assertTrue(Set.of(201, 402).contains(settled.status()), settled::body);
        for (ApiResponse answer : concurrent) {
            assertTrue(Set.of(201, 402, 409, 503).contains(answer.status()), answer::body);
            if (answer.status() == 201 || answer.status() == 402) {
                assertEquals(settled.body(), answer.body(), "one answer per key");
            }
        }
        return settled;
    }
}
