package dev.oncepay.admin;

import static dev.oncepay.testing.Problems.assertProblem;
import static dev.oncepay.testing.Problems.errorFields;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.function.WebhookFunction;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.sim.Faults;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.webhook.WebhookRequests;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The order guard as operators meet it, through the charge function: an order's payments listed,
 * a payment's order shown, and resolutions that keep an order to one success unless overridden.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class OrderAdminTest extends AdminTestSupport {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    WebhookFunction webhook;

    @Test
    void anOrderListsEveryPaymentBoundToItOldestFirstAndAPaymentsHistoryShowsItsOrder() {
        String reference = "order/ä 1+2&x=y";
        String declined = declined(reference);
        clock.advance(Duration.ofSeconds(1));
        ApiResponse paid = post(newKey(), body(4200, reference));
        assertEquals(201, paid.status(), paid::toString);
        String paidId = paid.json().path("id").asText();
        assertProblem(post(newKey(), body(4200, reference)), 409, "order-already-paid");

        ApiResponse listed = order(tenant, reference);

        assertEquals(200, listed.status(), listed::toString);
        JsonNode order = listed.json();
        assertEquals(tenant, order.path("tenant").asText());
        assertEquals(reference, order.path("reference").asText());
        assertEquals(paidId, order.path("paymentId").asText());
        assertEquals(List.of(declined, paidId), texts(order.path("payments"), "id"),
                "the refused request kept no payment");
        assertEquals(List.of("failed", "succeeded"), texts(order.path("payments"), "status"));
        JsonNode shown = detail(declined).json().path("order");
        assertEquals(paidId, shown.path("paymentId").asText(), shown::toString);
        assertEquals(Set.of(declined, paidId), Set.copyOf(texts(shown.path("paymentIds"), null)));
    }

    @Test
    void anOrderWithoutAPaymentIsNotFoundAndTheQueryIsChecked() {
        assertEquals(201, post(newKey(), body(100, "order_of_this_tenant")).status());

        assertProblem(order(tenant, "order_never_paid"), 404, "not-found");
        assertProblem(order("merchant-" + UUID.randomUUID(), "order_of_this_tenant"), 404, "not-found");
        ApiResponse noQuery = admin("GET", "/admin/orders");
        assertProblem(noQuery, 400, "invalid-request");
        assertEquals(Set.of("tenant", "reference"), errorFields(noQuery));
        ApiResponse tooLong = order(tenant, "r".repeat(129));
        assertProblem(tooLong, 400, "invalid-request");
        assertEquals(Set.of("reference"), errorFields(tooLong));
        assertProblem(admin("POST", "/admin/orders?tenant=" + tenant + "&reference=x"), 405, "method-not-allowed");
    }

    @Test
    void aFailedPaymentThatALateChargeMovesToReviewHoldsItsOrderAgainstANewKey() throws Exception {
        String reference = "order_late_charge";
        String first = declined(reference);
        String second = declined(reference); // the order is now bound to the second declined payment
        lateCharge(first);
        int charges = sim.chargeRequests();

        ApiResponse again = post(newKey(), body(4200, reference));

        JsonNode problem = assertProblem(again, 409, "order-in-progress");
        assertEquals(first, problem.path("paymentId").asText(), "the payment in review, not the bound " + second);
        assertEquals(charges, sim.chargeRequests(), "no provider call");
    }

    @Test
    void aSucceededResolutionBesideTheOrdersPaidPaymentIsRefusedUnlessOverridden() throws Exception {
        String reference = "order_two_successes";
        String first = declined(reference);
        ApiResponse paid = post(newKey(), body(4200, reference));
        assertEquals(201, paid.status(), paid::toString);
        String paidId = paid.json().path("id").asText();
        String lateCharge = lateCharge(first);
        Map<String, String> before = stored(first);

        ApiResponse refused = resolve(first, UUID.randomUUID().toString(),
                succeeded(lateCharge, "provider dashboard shows it captured", false));

        JsonNode problem = assertProblem(refused, 409, "order-already-paid");
        assertEquals(paidId, problem.path("paymentId").asText());
        assertEquals("/admin/payments/" + paidId, refused.header("Location"));
        assertEquals(before, stored(first), "nothing written");
        assertEquals(List.of(first, paidId).stream().sorted().toList(),
                texts(order(tenant, reference).json().path("payments"), "id").stream().sorted().toList());

        ApiResponse overridden = resolve(first, UUID.randomUUID().toString(),
                succeeded(lateCharge, "the customer keeps both: two parcels shipped", true));

        assertEquals(200, overridden.status(), overridden::toString);
        assertEquals("succeeded", overridden.json().path("payment").path("status").asText());
        assertEquals(List.of("succeeded", "succeeded"), texts(order(tenant, reference).json().path("payments"),
                "status"));
        assertProblem(post(newKey(), body(4200, reference)), 409, "order-already-paid");
    }

    @Test
    void anOrderAnOperatorFailedIsHeldUntilTheProviderProvesNothingWasCharged() {
        String reference = "order_operator_failed";
        String failedId = unknownPaymentNotCharged(UUID.randomUUID().toString(), reference, 4200);
        assertEquals(200, resolve(failedId, UUID.randomUUID().toString(), failed("provider has no charge", true))
                .status());

        JsonNode held = assertProblem(post(newKey(), body(4200, reference)), 409, "order-in-progress");
        assertEquals(failedId, held.path("paymentId").asText(), "resolved_failed on the operator's word alone");
        assertEquals(0, sim.ledger().size());

        clock.advance(Duration.ofHours(26));
        sweepOnly(Set.of(failedId)); // the provider still has no charge: now a proof, no longer watched
        ApiResponse another = post(newKey(), body(4200, reference));

        assertEquals(201, another.status(), another::toString);
        assertEquals(1, sim.ledger().size());
    }

    private ApiResponse order(String tenantId, String reference) {
        return admin("GET", "/admin/orders?tenant=" + URLEncoder.encode(tenantId, StandardCharsets.UTF_8)
                + "&reference=" + URLEncoder.encode(reference, StandardCharsets.UTF_8));
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    /** A payment for the order that the provider declines; returns its id. */
    private String declined(String reference) {
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        ApiResponse response = post(newKey(), body(4200, reference));
        sim.setFaults(Faults.none());
        assertEquals(402, response.status(), response::toString);
        return response.json().path("paymentId").asText();
    }

    /** A succeeded charge for a declined payment shows up at the provider and its webhook moves the payment to review. */
    private String lateCharge(String paymentId) throws Exception {
        String chargeId = chargeAtProvider(paymentId, 4200, "EUR");
        String event = WebhookRequests.chargeEvent(WebhookRequests.newEventId(), "charge.succeeded", paymentId,
                chargeId, 4200, "EUR");
        HttpApiResponse delivered = webhook.webhook(JSON.readValue(WebhookRequests.event("sim", event,
                WebhookRequests.signNow("local-sim-secret", event)), HttpApiEvent.class));
        assertEquals(200, delivered.statusCode(), delivered.body());
        assertEquals("needs_review", detail(paymentId).json().path("payment").path("status").asText());
        return chargeId;
    }

    private static List<String> texts(JsonNode array, String field) {
        return StreamSupport.stream(array.spliterator(), false)
                .map(n -> field == null ? n.asText() : n.path(field).asText()).toList();
    }
}
