package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * DynamoDB requests and provider calls per operation, counted by the SDK execution interceptor.
 * They are deterministic, so they are asserted; the figures are in docs/benchmark.md and docs/cost.md.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class RequestCostTest extends ChargeTestSupport {

    /** How long a sandbox trusts its read of a fleet breaker. */
    @ConfigProperty(name = "oncepay.provider.breaker-cache")
    Duration breakerCache;

    @Test
    void aFirstChargeCostsFourWritesTheBreakerAndBulkheadReadsAndOneProviderCall() {
        dynamoRequests.reset();
        assertEquals(201, post(newKey(), body(4200, "EUR", "order_cost")).status());

        // claim the key, record the PENDING payment, bind its order, settle it (fenced); and this
        // sandbox's first reads of its fleet charge breaker shard, which it then trusts for
        // breaker-cache, and of its bulkhead slot shard, which it trusts for ten of those
        assertEquals(Map.of("GetItem", 2L, "PutItem", 2L, "UpdateItem", 2L), dynamoRequests.snapshot());
        assertEquals(1, sim.chargeRequests());
    }

    @Test
    void healthyChargesReadTheFleetBreakerAtMostOncePerCachePeriodTheBulkheadOncePerTenAndNeverWriteThem() {
        int charges = 30;
        dynamoRequests.reset();
        Instant start = clock.instant();
        for (int i = 0; i < charges; i++) {
            assertEquals(201, post(newKey(), body(4200, "EUR", "order_healthy_" + i)).status());
            clock.advance(breakerCache.dividedBy(4)); // four charges per cache period, whatever the machine's speed
        }
        Duration took = Duration.between(start, clock.instant());

        Map<String, Long> requests = dynamoRequests.snapshot();
        long breakerReads = requests.getOrDefault("GetItem", 0L); // a first charge reads nothing else
        long periods = took.toMillis() / breakerCache.toMillis() + 1;
        long slotReads = took.toMillis() / breakerCache.multipliedBy(10).toMillis() + 1;
        assertTrue(breakerReads > 1 && breakerReads <= periods + slotReads,
                () -> breakerReads + " breaker and bulkhead reads in " + took.toMillis() + " ms, at most one per "
                        + breakerCache + " and one per ten of those");
        assertEquals(2L * charges, requests.get("PutItem"));
        assertEquals(2L * charges, requests.get("UpdateItem"), "the order's bind and the settle; no breaker write");
        System.out.printf("fleet breaker and bulkhead on the healthy path: %d GetItem for %d charges in %d ms (%.3f per charge)%n",
                breakerReads, charges, took.toMillis(), (double) breakerReads / charges);
    }

    @Test
    void aReplayCostsTheFailedClaimAndOnePaymentReadAndNoProviderCall() {
        String key = newKey();
        post(key, body(4200, "EUR", "order_replay_cost"));
        dynamoRequests.reset();
        int calls = sim.chargeRequests();

        assertEquals(201, post(key, body(4200, "EUR", "order_replay_cost")).status());

        // dynalite ignores ReturnValuesOnConditionCheckFailure, so the store falls back to one
        // consistent GetItem of the key; on DynamoDB the failed PutItem returns it: 2 requests.
        assertEquals(Map.of("PutItem", 1L, "GetItem", 2L), dynamoRequests.snapshot());
        assertEquals(calls, sim.chargeRequests());
    }

    @Test
    void aLookupCostsTwoReadsThePaymentAndItsOrder() {
        String id = post(newKey(), body(4200, "EUR", "order_get_cost")).json().get("id").asText();
        dynamoRequests.reset();
        assertEquals(200, get(id).status());
        assertEquals(Map.of("GetItem", 2L), dynamoRequests.snapshot());
    }
}
