package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DynamoDB requests and provider calls per operation, counted by the SDK execution interceptor.
 * They are deterministic, so they are asserted; the figures go into the README.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class RequestCostTest extends ChargeTestSupport {

    @Test
    void aFirstChargeCostsThreeWritesAndOneProviderCall() {
        dynamoRequests.reset();
        assertEquals(201, post(newKey(), body(4200, "EUR", "order_cost")).status());

        // claim the key, record the PENDING payment, settle it (fenced): no reads at all
        assertEquals(Map.of("PutItem", 2L, "UpdateItem", 1L), dynamoRequests.snapshot());
        assertEquals(1, sim.chargeRequests());
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
    void aLookupCostsOneRead() {
        String id = post(newKey(), body(4200, "EUR", "order_get_cost")).json().get("id").asText();
        dynamoRequests.reset();
        assertEquals(200, get(id).status());
        assertEquals(Map.of("GetItem", 1L), dynamoRequests.snapshot());
    }
}
