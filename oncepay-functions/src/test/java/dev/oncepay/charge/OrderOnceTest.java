package dev.oncepay.charge;

import static dev.oncepay.testing.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.Table;
import dev.oncepay.sim.Faults;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One order, one charge (design rule 16): a new Idempotency-Key for an order that is paid or
 * whose payment is live is refused before any provider call, and leaves nothing under its key
 * that could charge; after a definite failure the order takes a new payment. The simulator's
 * ledger is the judge.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class OrderOnceTest extends ChargeTestSupport {
    @ConfigProperty(name = "oncepay.idempotency.lease")
    Duration lease;

    @Test
    void aPaidOrderUnderANewKeyIsRefusedAndNothingIsCharged() {
        String body = body(4200, "EUR", "order_paid");
        ApiResponse paid = post(newKey(), body);
        assertEquals(201, paid.status(), paid.body());
        String paidId = paid.json().get("id").asText();
        int charges = sim.chargeRequests();
        List<Map<String, AttributeValue>> before = storedItems();

        String newKey = newKey();
        ApiResponse again = post(newKey, body);

        JsonNode problem = assertProblem(again, 409, "order-already-paid");
        assertEquals(paidId, problem.get("paymentId").asText());
        assertEquals("/payments/" + paidId, again.header("Location"));
        assertEquals(charges, sim.chargeRequests(), "no provider call");
        assertEquals(1, sim.ledger().size());
        assertEquals(before, storedItems(), "nothing kept under the refused key: no payment, no key");
        // The key was released: its retry meets the order as it stands, the same refusal.
        assertProblem(post(newKey, body), 409, "order-already-paid");
        assertEquals(charges, sim.chargeRequests());
    }

    @Test
    void anOrderWhoseRunDiedAfterBindingIsInProgressForANewKey() {
        String body = body(4200, "EUR", "order_live");
        hooks.crashOnceAfter(ChargePhase.ORDER_BOUND);
        assertEquals(-1, post(newKey(), body).status());
        String liveId = paymentIds().get(0);
        List<Map<String, AttributeValue>> before = storedItems();

        ApiResponse again = post(newKey(), body);

        JsonNode problem = assertProblem(again, 409, "order-in-progress");
        assertEquals(liveId, problem.get("paymentId").asText());
        assertEquals("/payments/" + liveId, again.header("Location"));
        assertEquals("1", again.header("Retry-After"), "what a retry of the live payment's own key is told");
        assertEquals(0, sim.chargeRequests(), "no provider call");
        assertEquals(before, storedItems(), "nothing kept under the refused key");
    }

    @Test
    void anUnknownOrderIsInProgressWithTheRetryAfterOfItsOwn202() {
        String body = body(990, "EUR", "order_unknown");
        sim.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(8000));
        ApiResponse first = post(newKey(), body);
        assertEquals(202, first.status(), first.body());
        sim.setFaults(Faults.none());
        int charges = sim.chargeRequests();

        ApiResponse again = post(newKey(), body);

        assertProblem(again, 409, "order-in-progress");
        assertEquals(first.header("Location"), again.header("Location"));
        assertEquals(first.header("Retry-After"), again.header("Retry-After"));
        assertEquals(charges, sim.chargeRequests());
        assertEquals(1, sim.ledger().size(), "the first payment's one charge, and no other");
    }

    @Test
    void anotherAmountOrCurrencyForALiveOrderIsAConflictNamingTheField() {
        hooks.crashOnceAfter(ChargePhase.ORDER_BOUND);
        assertEquals(-1, post(newKey(), body(4200, "EUR", "order_mismatch")).status());
        List<Map<String, AttributeValue>> before = storedItems();

        ApiResponse amount = post(newKey(), body(4300, "EUR", "order_mismatch"));
        ApiResponse currency = post(newKey(), body(4200, "USD", "order_mismatch"));

        assertEquals("amount", assertProblem(amount, 409, "order-mismatch").get("field").asText());
        assertEquals("currency", assertProblem(currency, 409, "order-mismatch").get("field").asText());
        assertEquals(0, sim.chargeRequests());
        assertEquals(before, storedItems());
    }

    @Test
    void aDeclinedOrderTakesAPaymentUnderANewKey() {
        String body = body(4200, "EUR", "order_declined");
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        assertEquals(402, post(newKey(), body).status());
        sim.setFaults(Faults.none());

        ApiResponse another = post(newKey(), body);

        assertEquals(201, another.status(), another.body());
        assertEquals(List.of("declined", "succeeded"), sim.ledger().stream().map(e -> e.status()).toList());
        assertProblem(post(newKey(), body), 409, "order-already-paid");
        assertEquals(2, sim.ledger().size());
    }

    @Test
    void anOrderWhoseRunDiedBeforeBindingIsFreeForANewKey() {
        String body = body(4200, "EUR", "order_unbound");
        hooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        assertEquals(-1, post(newKey(), body).status());

        ApiResponse another = post(newKey(), body);

        // The dead run's payment was never sent (the sweep proves it not charged); the order was free.
        assertEquals(201, another.status(), another.body());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void tenRequestsForOneOrderUnderTenKeysAtOnceChargeOnce() throws Exception {
        sim.setFaults(Faults.none().withLatencyMs(300)); // the winner stays in flight while the others bind
        List<HttpApiEvents> events = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            events.add(HttpApiEvents.postPayment(tenant, newKey(), body(4200, "EUR", "order_double_click")));
        }

        List<ApiResponse> answers = direct.concurrently(events);

        assertEquals(1, sim.chargeRequests(), "one charge sent");
        assertEquals(1, sim.ledger().size(), "one charge executed");
        Map<Integer, Long> byStatus = answers.stream()
                .collect(Collectors.groupingBy(ApiResponse::status, Collectors.counting()));
        assertEquals(Map.of(201, 1L, 409, 9L), byStatus);
        String paidId = answers.stream().filter(a -> a.status() == 201).findFirst().orElseThrow().json().get("id")
                .asText();
        answers.stream().filter(a -> a.status() == 409).forEach(a -> {
            assertTrue(a.json().get("type").asText().matches(".*/order-(in-progress|already-paid)"), a.body());
            assertEquals(paidId, a.json().get("paymentId").asText());
        });
        assertEquals(List.of(paidId), paymentIds(), "the refused requests kept no payment");
    }

    @Test
    void aFirstChargeCostsOneStoreRequestMoreAndAReplayNone() {
        String key = newKey();
        String body = body(4200, "EUR", "order_cost");
        post(newKey(), body(100, "EUR", "order_warm_up")); // this sandbox's breaker read, out of the count
        dynamoRequests.reset();

        assertEquals(201, post(key, body).status());
        // claim, record (PutItem); bind the order (the one more), settle (UpdateItem)
        assertEquals(Map.of("PutItem", 2L, "UpdateItem", 2L), dynamoRequests.snapshot());

        dynamoRequests.reset();
        assertEquals(201, post(key, body).status());
        assertEquals(Map.of("PutItem", 1L, "GetItem", 2L), dynamoRequests.snapshot(), "a replay reads no order");
    }

    @Test
    void aTenantWithoutTheGuardChargesOneReferenceUnderEachKey() {
        tenant = "merchant-instalments";
        String body = body(2500, "EUR", "order_instalments_" + newKey());

        assertEquals(201, post(newKey(), body).status());
        assertEquals(201, post(newKey(), body).status());

        assertEquals(2, sim.ledger().size());
        assertTrue(storedItems().stream().noneMatch(i -> Table.KIND_ORDER.equals(i.get(Table.KIND).s())),
                "no order item");
    }

    @Test
    void aPaymentShowsWhichPaymentItsOrderIsBoundTo() {
        String body = body(4200, "EUR", "order_shown");
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        ApiResponse declined = post(newKey(), body);
        sim.setFaults(Faults.none());
        ApiResponse paid = post(newKey(), body);
        String declinedId = declined.json().get("paymentId").asText();
        String paidId = paid.json().get("id").asText();

        JsonNode ofPaid = get(paidId).json().get("order");
        JsonNode ofDeclined = get(declinedId).json().get("order");

        assertEquals(paidId, ofPaid.get("paymentId").asText());
        assertTrue(ofPaid.get("boundAt").isTextual(), ofPaid.toString());
        assertEquals(paidId, ofDeclined.get("paymentId").asText(), "the declined payment was replaced");
        assertFalse(paid.json().has("order"), "a charge's answer stays the payment alone: a replay reads no order");
    }

    @Test
    void aPaymentWhoseRunDiedBeforeBindingShowsItsOrderUnbound() {
        hooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        assertEquals(-1, post(newKey(), body(4200, "EUR", "order_never_bound")).status());

        JsonNode order = get(paymentIds().get(0)).json().get("order");

        assertTrue(order.get("paymentId").isNull(), order.toString());
        assertTrue(order.get("boundAt").isNull(), order.toString());
    }

    @Test
    void aPaymentOfATenantWithoutTheGuardShowsNoOrder() {
        tenant = "merchant-instalments";
        ApiResponse paid = post(newKey(), body(2500, "EUR", "order_unguarded_" + newKey()));

        assertFalse(get(paid.json().get("id").asText()).json().has("order"));
    }
}
