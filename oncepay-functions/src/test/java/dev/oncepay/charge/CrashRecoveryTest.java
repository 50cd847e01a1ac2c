package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.sim.Faults;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The process dies between steps (design rule 8). No clean-up code runs; a retry after the lease has
 * expired takes over and finishes with exactly one provider charge and the right answer.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class CrashRecoveryTest extends ChargeTestSupport {
    @ParameterizedTest
    @EnumSource(value = ChargePhase.class, names = { "KEY_CLAIMED", "PAYMENT_RECORDED", "ORDER_BOUND", "PROVIDER_ANSWERED" })
    void aRetryAfterTheLeaseFinishesTheCrashedRun(ChargePhase crashAfter) {
        String key = newKey();
        String body = body(4200, "EUR", "order_crash");
        hooks.crashOnceAfter(crashAfter);

        ApiResponse crashed = post(key, body);
        assertEquals(-1, crashed.status(), "the invocation failed like a crashed process");

        ApiResponse early = post(key, body);
        assertEquals(409, early.status(), "while the dead run's lease lasts, the key is in flight");

        clock.advance(lease.plusSeconds(1));
        ApiResponse recovered = post(key, body);

        assertEquals(201, recovered.status());
        String id = recovered.json().get("id").asText();
        assertEquals("succeeded", recovered.json().get("status").asText());
        assertEquals(1, ledgerChargesFor(id), "exactly one charge, whatever the dead run did");
        assertEquals(1, sim.ledger().size());
        assertEquals("SUCCEEDED", storedPayment(id).get(Table.STATUS).s());
        assertNull(storedPayment(id).get(Table.NEXT_CHECK_AT), "settled payments leave the sweep index");
        assertEquals(recovered.body(), post(key, body).body(), "and it is replayed from now on");
    }

    @Test
    void aDeclineFoundByTheRecoveringRunIsTheAnswer() {
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        String key = newKey();
        String body = body(4200, "EUR", "order_crash_decline");
        hooks.crashOnceAfter(ChargePhase.PROVIDER_ANSWERED);
        assertEquals(-1, post(key, body).status());

        sim.setFaults(Faults.none()); // the provider remembers its answer per idempotency key
        clock.advance(lease.plusSeconds(1));
        ApiResponse recovered = post(key, body);

        assertEquals(402, recovered.status());
        assertEquals(1, sim.ledger().size());
        assertEquals("declined", sim.ledger().get(0).status());
    }

    @Test
    void aTakeoverNeverChargesAPaymentOfAnotherProviderAccountHere() {
        String key = newKey();
        String body = body(4200, "EUR", "order_other_account");
        hooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        assertEquals(-1, post(key, body).status());
        String id = storedItems().stream().filter(i -> Table.KIND_PAYMENT.equals(i.get(Table.KIND).s())).findFirst()
                .orElseThrow().get(Table.PK).s().substring("payment#".length());
        assertEquals("sim", storedPayment(id).get(Table.PROVIDER).s(), "recorded with its provider");
        assertEquals("default", storedPayment(id).get(Table.PROVIDER_ACCOUNT).s(), "and account");
        // As if the dead run's deployment charged through another account of the provider.
        TestEnvironment.dynamo().updateItem(b -> b.tableName(TestEnvironment.TABLE)
                .key(Map.of(Table.PK, AttributeValue.fromS("payment#" + id)))
                .updateExpression("SET #a = :a").expressionAttributeNames(Map.of("#a", Table.PROVIDER_ACCOUNT))
                .expressionAttributeValues(Map.of(":a", AttributeValue.fromS("acct_elsewhere"))));
        int charges = sim.chargeRequests();

        clock.advance(lease.plusSeconds(1));
        ApiResponse retried = post(key, body);

        assertEquals(202, retried.status(), retried.body());
        assertEquals("pending", retried.json().get("status").asText());
        assertEquals(charges, sim.chargeRequests(), "not sent to an account that did not take it");
        assertEquals("UNKNOWN", storedPayment(id).get(Table.STATUS).s());
        assertTrue(storedPayment(id).get(Table.STATUS_REASON).s().contains("sim/acct_elsewhere"));
    }

    @Test
    void onlyOneOfTwoRacingRetriesTakesOver() throws Exception {
        String key = newKey();
        String body = body(4200, "EUR", "order_race_takeover");
        hooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        assertEquals(-1, post(key, body).status());
        clock.advance(lease.plusSeconds(1));
        hooks.parkOnceAfter(ChargePhase.PAYMENT_RECORDED);

        CompletableFuture<ApiResponse> a = CompletableFuture.supplyAsync(
                () -> direct.call(HttpApiEvents.postPayment(tenant, key, body)));
        assertTrue(hooks.awaitParked(), "the first retry took over and holds the key");
        ApiResponse b = direct.call(HttpApiEvents.postPayment(tenant, key, body));
        assertEquals(409, b.status(), "the takeover is exclusive");
        hooks.release();

        assertEquals(201, a.get(30, TimeUnit.SECONDS).status());
        assertEquals(1, sim.ledger().size());
    }
}
