package dev.oncepay.charge;

import static dev.oncepay.testkit.HttpApiEvents.getPayment;
import static dev.oncepay.testkit.HttpApiEvents.postPayment;
import static dev.oncepay.testing.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Keys and payments are scoped per tenant (design rule 3; design §3: {@code GET} → 404 for another tenant's payment). */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class TenantIsolationTest extends ChargeTestSupport {
    static final String BODY = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\"}";

    String tenantA;
    String tenantB;
    String key;

    @BeforeEach
    void twoTenantsOneKey() {
        tenantA = tenant;
        tenantB = "merchant-b-" + newKey();
        key = "order-9182-attempt-1"; // the same client key from both merchants
    }

    @Test
    void sameKeyAndBodyFromTwoTenantsAreTwoIndependentPayments() {
        ApiResponse a = LambdaClient.call(postPayment(tenantA, key, BODY));
        ApiResponse b = LambdaClient.call(postPayment(tenantB, key, BODY));

        assertEquals(201, a.status(), a::toString);
        assertEquals(201, b.status(), b::toString);
        assertNull(a.header("Idempotent-Replayed"), "A is a first request");
        assertNull(b.header("Idempotent-Replayed"), "B is a first request, not a replay of A");
        String idA = a.json().path("id").asText();
        String idB = b.json().path("id").asText();
        assertNotEquals(idA, idB);

        List<LedgerEntry> ledger = sim.ledger();
        assertEquals(Set.of(idA, idB), ledger.stream().map(LedgerEntry::reference).collect(Collectors.toSet()),
                "one provider charge per tenant");
        assertEquals(2, ledger.size());
        // The provider key derives from our payment id, never the client's key, so the PSP
        // could not have deduplicated B's charge into A's.
        assertEquals(2, ledger.stream().map(LedgerEntry::idempotencyKey).distinct().count());
        assertTrue(ledger.stream().noneMatch(e -> e.idempotencyKey().contains(key)), "client key never reaches the PSP");

        assertOwnItems(tenantA, idA);
        assertOwnItems(tenantB, idB);
    }

    @Test
    void anotherTenantsPaymentIsNotFound() {
        ApiResponse created = LambdaClient.call(postPayment(tenantA, key, BODY));
        assertEquals(201, created.status(), created::toString);
        String id = created.json().path("id").asText();

        ApiResponse byOwner = LambdaClient.call(getPayment(tenantA, id));
        assertEquals(200, byOwner.status(), byOwner::toString);
        assertEquals("application/json", byOwner.header("Content-Type"));
        ObjectNode shown = (ObjectNode) byOwner.json();
        assertEquals(id, shown.remove("order").path("paymentId").asText(), "and its order's binding");
        assertEquals(created.json(), dev.oncepay.testing.PaymentViews.asCharged(shown),
                "GET shows the payment the POST answered");

        ApiResponse byOther = LambdaClient.call(getPayment(tenantB, id));
        assertProblem(byOther, 404, "not-found");
        assertFalse(byOther.body().contains(tenantA), "nothing about the owner leaks");

        // Indistinguishable from a payment that does not exist at all.
        String missing = "pay_" + UUID.randomUUID().toString().replace("-", "");
        ApiResponse unknown = LambdaClient.call(getPayment(tenantB, missing));
        assertProblem(unknown, 404, "not-found");
        assertEquals(unknown.body().replace(missing, id), byOther.body());
    }

    @Test
    void replayingAnotherTenantsKeyCreatesOwnPaymentNeverTheirs() {
        ApiResponse a = LambdaClient.call(postPayment(tenantA, key, BODY));
        assertEquals(201, a.status(), a::toString);
        String idA = a.json().path("id").asText();
        // A's payment exists and is settled; B now sends A's key, even with another body: that is
        // neither a replay of A's answer nor a 422, because B never used the key.
        String otherBody = "{\"amount\":990,\"currency\":\"USD\",\"reference\":\"b-order-1\"}";

        ApiResponse b = LambdaClient.call(postPayment(tenantB, key, otherBody));

        assertEquals(201, b.status(), b::toString);
        assertNull(b.header("Idempotent-Replayed"));
        String idB = b.json().path("id").asText();
        assertNotEquals(idA, idB);
        assertEquals(990, b.json().path("amount").asLong());
        assertEquals("USD", b.json().path("currency").asText());

        // Each tenant's replay gives its own answer, unchanged.
        ApiResponse replayA = LambdaClient.call(postPayment(tenantA, key, BODY));
        ApiResponse replayB = LambdaClient.call(postPayment(tenantB, key, otherBody));
        assertEquals("true", replayA.header("Idempotent-Replayed"));
        assertEquals("true", replayB.header("Idempotent-Replayed"));
        assertEquals(a.body(), replayA.body());
        assertEquals(b.body(), replayB.body());
        assertEquals(2, sim.ledger().size(), "replays charge nothing");
    }

    @Test
    void clientTenantHeaderCannotOverrideTheAuthorizer() {
        ApiResponse created = LambdaClient.call(postPayment(tenantA, key, BODY).header("x-tenant-id", tenantB));
        assertEquals(201, created.status(), created::toString);
        String id = created.json().path("id").asText();

        assertEquals(200, LambdaClient.call(getPayment(tenantA, id)).status(), "the payment is A's");
        assertProblem(LambdaClient.call(getPayment(tenantB, id)), 404, "not-found");
        assertTrue(StoredItems.ofTenant(tenantB).isEmpty(), "nothing stored for the tenant the header claimed");
    }

    /** A tenant's items are its key (pointing at its payment) and that payment; nothing else. */
    private static void assertOwnItems(String tenant, String paymentId) {
        var items = StoredItems.ofTenant(tenant);
        // The key, the payment, and the order it is bound to: orders are per tenant too, so one
        // reference from two merchants is two orders, each paid once.
        assertEquals(3, items.size(), () -> "items of " + tenant + ": " + items);
        var keyItem = StoredItems.keyItem(tenant, "order-9182-attempt-1").orElseThrow();
        assertEquals(paymentId, keyItem.get(Table.PAYMENT_ID).s());
        assertEquals(tenant, StoredItems.paymentItem(paymentId).orElseThrow().get(Table.TENANT).s());
        var order = StoredItems.item(Table.orderItemId(tenant, "order_9182")).orElseThrow();
        assertEquals(paymentId, order.get(Table.PAYMENT_ID).s());
        assertEquals(tenant, order.get(Table.TENANT).s());
    }
}
