package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Table;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A run that froze (GC pause, frozen sandbox) past its lease wakes up after a retry took over
 * and finished: its late writes are fenced off by the lease epoch and change nothing.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ZombieRunTest extends ChargeTestSupport {
    @ParameterizedTest
    @EnumSource(value = ChargePhase.class, names = { "PAYMENT_RECORDED", "PROVIDER_ANSWERED" })
    void theZombiesLateCompletionIsRejected(ChargePhase frozenAfter) throws Exception {
        String key = newKey();
        String body = body(4200, "EUR", "order_zombie");
        hooks.parkOnceAfter(frozenAfter);
        CompletableFuture<ApiResponse> zombie = CompletableFuture.supplyAsync(
                () -> direct.call(HttpApiEvents.postPayment(tenant, key, body)));
        assertTrue(hooks.awaitParked(), "the first run froze after " + frozenAfter);

        clock.advance(lease.plusSeconds(1));
        ApiResponse winner = direct.call(HttpApiEvents.postPayment(tenant, key, body));
        assertEquals(201, winner.status());
        String id = winner.json().get("id").asText();
        Map<String, AttributeValue> settled = storedPayment(id);
        assertEquals("2", settled.get(Table.LEASE_EPOCH).n(), "the retry took over at epoch 2");

        hooks.release();
        ApiResponse late = zombie.get(30, TimeUnit.SECONDS);

        assertEquals(settled, storedPayment(id), "the zombie changed nothing");
        assertEquals(201, late.status());
        assertEquals(winner.body(), late.body(), "the zombie answers with the winner's truth");
        assertNull(late.header("Idempotent-Replayed"), "the first request's answer is never a replay");
        assertEquals(1, sim.ledger().size(), "the same provider key never charges twice");
    }

    @Test
    void aZombieWhoseTakeoverDiedStillRecordsTheProvidersAnswerAsItsOwn() throws Exception {
        String key = newKey();
        String body = body(4300, "EUR", "order_zombie_orphan");
        hooks.parkOnceAfter(ChargePhase.PROVIDER_ANSWERED);
        CompletableFuture<ApiResponse> zombie = CompletableFuture.supplyAsync(
                () -> direct.call(HttpApiEvents.postPayment(tenant, key, body)));
        assertTrue(hooks.awaitParked(), "the first run froze with the provider's answer");
        // A retry takes over (epoch 2), fences the payment, and dies before calling the provider.
        clock.advance(lease.plusSeconds(1));
        hooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        assertEquals(-1, post(key, body).status());
        String id = sim.ledger().get(0).reference();
        assertEquals("2", storedPayment(id).get(Table.LEASE_EPOCH).n());

        hooks.release();
        ApiResponse late = zombie.get(30, TimeUnit.SECONDS);

        // Its fenced settle lost, but the provider's answer is a fact, applied like a webhook's.
        assertEquals(201, late.status(), late.body());
        assertNull(late.header("Idempotent-Replayed"));
        assertEquals("SUCCEEDED", storedPayment(id).get(Table.STATUS).s());
        assertEquals(sim.ledger().get(0).id(), storedPayment(id).get(Table.PROVIDER_PAYMENT_ID).s());
        ApiResponse replay = post(key, body);
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(late.body(), replay.body());
        assertEquals(1, sim.ledger().size());
    }
}
