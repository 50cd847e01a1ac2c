package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.config.Metrics;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.ProviderOperation;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testing.StoreFault;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The charge function under the fleet's breaker and retry budget, moved by another sandbox: what
 * one sandbox learns about a provider account stops every other one.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class FleetBreakerChargeTest extends ChargeTestSupport {
    private static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");

    @Inject
    RecordingMetrics metrics;
    @ConfigProperty(name = "oncepay.provider.breaker-cache")
    Duration breakerCache;

    @Test
    void aBreakerOpenedByAnotherSandboxFailsChargesFastHereOnceThisSandboxReadsItAgain() {
        assertEquals(201, post(newKey(), body(100, "EUR", "order_before")).status()); // this sandbox read it closed
        breakers.openFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        clock.advance(breakerCache); // this sandbox's read is due again
        int calls = sim.chargeRequests();
        List<Map<String, AttributeValue>> before = storedItems();

        ApiResponse refused = post(newKey(), body(100, "EUR", "order_refused"));

        assertEquals(503, refused.status(), refused::body);
        assertEquals("https://oncepay.dev/problems/provider-unavailable", refused.json().get("type").asText());
        assertEquals(calls, sim.chargeRequests(), "no request reached the provider");
        assertEquals(before, storedItems(), "nothing stored: the key is free for a retry");
    }

    @Test
    void whenTheBreakersOwnItemCannotBeReadTheChargeStillReachesTheProvider() {
        metrics.reset();
        try {
            TestEnvironment.storeProxy().failNext("GetItem", "breaker#", StoreFault.SERVER_ERROR, 3);

            ApiResponse created = post(newKey(), body(100, "EUR", "order_breaker_store_down"));

            assertEquals(201, created.status(), created::body);
            assertEquals(1, sim.chargeRequests());
            assertTrue(metrics.counted(Metrics.BREAKER_STORE_FAILED) >= 1, "the breaker failed open, and said so");
        } finally {
            TestEnvironment.storeProxy().reset();
        }
    }

    @Test
    void withTheFleetsRetryBudgetSpentAServerErrorIsNotRetriedAndStaysUnknown() {
        breakers.spendRetryBudgetFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        metrics.reset();
        sim.scriptChargeAnswers(500);

        ApiResponse answer = post(newKey(), body(100, "EUR", "order_no_retry"));

        assertEquals(202, answer.status(), "a 5xx may have executed: UNKNOWN, for reconcile to ask");
        assertEquals(1, sim.chargeRequests(), "not retried");
        assertEquals(1, metrics.counted(Metrics.RETRY_BUDGET_SPENT));
    }

    @Test
    void withTheFleetsRetryBudgetSpentARateLimitIsNotRetriedAndNothingWasSent() {
        breakers.spendRetryBudgetFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        sim.scriptChargeAnswers(429);
        List<Map<String, AttributeValue>> before = storedItems();

        ApiResponse answer = post(newKey(), body(100, "EUR", "order_429_no_retry"));

        assertEquals(503, answer.status(), "a 429 provably did not execute: NOT_SENT");
        assertTrue(answer.json().get("detail").asText().contains("retry budget"), answer::body);
        assertEquals(1, sim.chargeRequests(), "not retried");
        assertEquals(before, storedItems());
    }
}
