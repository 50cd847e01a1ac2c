package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.testkit.StoreFaultProxy;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The benchmark ({@code ./drill.sh --bench}) reports DynamoDB requests per charge as the store
 * proxy's {@code /_store/stats} counts them by caller: those counts are exactly the requests the
 * function's own SDK made ({@link dev.oncepay.store.DynamoRequestCounter}, whose figures
 * {@code RequestCostTest} pins), and the provider calls the simulator counts, for a first charge
 * and for its replay.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StoreRequestCountTest extends ChargeTestSupport {
    /** The functions' access key id in the tests (the local run gives each function its own name). */
    private static final String CALLER = "test";

    @Test
    void theStoreProxyCountsExactlyTheRequestsOfAFirstChargeAndOfItsReplay() {
        StoreFaultProxy proxy = TestEnvironment.storeProxy();
        // A charge before counting: a pooled connection an earlier test's stalled store left behind
        // fails here, and its retry (one SDK call, two requests at the proxy) is not counted below.
        assertEquals(201, post(newKey(), body(100, "EUR", "order_bench_warm_up")).status());
        long charged = sim.chargeRequests();
        String key = newKey();
        proxy.reset();
        dynamoRequests.reset();

        assertEquals(201, post(key, body(4200, "EUR", "order_bench_counts")).status());

        Map<String, Long> firstCharge = counted(proxy);
        assertEquals(dynamoRequests.snapshot(), firstCharge);
        assertTrue(firstCharge.getOrDefault("PutItem", 0L) >= 1, "the claim is a write: " + firstCharge);
        assertEquals(charged + 1, sim.chargeRequests());

        proxy.reset();
        dynamoRequests.reset();
        assertEquals(201, post(key, body(4200, "EUR", "order_bench_counts")).status());

        assertEquals(dynamoRequests.snapshot(), counted(proxy));
        assertEquals(charged + 1, sim.chargeRequests(), "a replay calls no provider");
    }

    private static Map<String, Long> counted(StoreFaultProxy proxy) {
        JsonNode stats = proxy.stats();
        Map<String, Long> counts = new TreeMap<>();
        stats.path("byCaller").path(CALLER).fields().forEachRemaining(e -> counts.put(e.getKey(), e.getValue().asLong()));
        assertEquals(stats.path("byCaller").size(), counts.isEmpty() ? 0 : 1, "only the function called: " + stats);
        return counts;
    }
}
