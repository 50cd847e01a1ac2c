package dev.oncepay.charge;

import static dev.oncepay.testkit.HttpApiEvents.getPayment;
import static dev.oncepay.testkit.HttpApiEvents.request;
import static dev.oncepay.testing.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.testing.PaymentViews;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@code GET /payments/{id}} and the routes around it (design §3). */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class PaymentLookupTest extends ChargeTestSupport {
    static final String BODY = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\","
            + "\"description\":\"two coffees\"}";
    static final List<String> CONTRACT_FIELDS = List.of("id", "status", "amount", "currency", "reference",
            "providerPaymentId", "createdAt", "updatedAt", "order", "amountRefunded", "amountRefundPending",
            "refundStatus", "refunds");

    @Test
    void existingPaymentHasExactlyTheContractFields() {
        ApiResponse created = post(newKey(), BODY);
        assertEquals(201, created.status(), created::toString);
        String id = created.json().path("id").asText();

        ApiResponse found = get(id);

        assertEquals(200, found.status(), found::toString);
        assertEquals("application/json", found.header("Content-Type"));
        JsonNode payment = found.json();
        List<String> fields = new ArrayList<>();
        payment.fieldNames().forEachRemaining(fields::add);
        assertEquals(CONTRACT_FIELDS, fields, "exactly the contract fields, in contract order");

        assertEquals(id, payment.path("id").asText());
        assertTrue(id.startsWith("pay_"), id);
        assertEquals("succeeded", payment.path("status").asText());
        assertTrue(payment.path("amount").isIntegralNumber(), "money is an integer");
        assertEquals(4200, payment.path("amount").asLong());
        assertEquals("EUR", payment.path("currency").asText());
        assertEquals("order_9182", payment.path("reference").asText());
        String providerId = payment.path("providerPaymentId").asText();
        assertEquals(sim.ledger().get(0).id(), providerId);
        Instant createdAt = Instant.parse(payment.path("createdAt").asText());
        Instant updatedAt = Instant.parse(payment.path("updatedAt").asText());
        assertFalse(updatedAt.isBefore(createdAt));
        assertEquals(id, payment.path("order").path("paymentId").asText(), "the payment its order is bound to");
        assertEquals(created.json(), PaymentViews.asCharged(payment), "the same payment the POST answered");
    }

    @Test
    void unknownPaymentIsNotFound() {
        String id = "pay_" + UUID.randomUUID().toString().replace("-", "");
        assertProblem(get(id), 404, "not-found");
        assertProblem(get("not-an-id"), 404, "not-found");
        assertProblem(get(""), 404, "not-found");
    }

    @Test
    void oversizedPaymentIdIsNotFoundRatherThanACrash() {
        // DynamoDB rejects partition keys above 2048 bytes with a ValidationException.
        String id = "pay_" + "a".repeat(3000);
        assertProblem(get(id), 404, "not-found");
    }

    @Test
    void lookupWithoutTenantIsUnauthenticated() {
        assertProblem(LambdaClient.call(getPayment(tenant, "pay_x").tenant(null)), 401, "unauthenticated");
    }

    @Test
    void wrongMethodIsNotAllowed() {
        assertProblem(LambdaClient.call(request("DELETE", "/payments/x").tenant(tenant)), 405, "method-not-allowed");
        assertProblem(LambdaClient.call(request("PUT", "/payments/x").tenant(tenant)), 405, "method-not-allowed");
        assertProblem(LambdaClient.call(request("GET", "/payments").tenant(tenant)), 405, "method-not-allowed");
        assertProblem(LambdaClient.call(request("DELETE", "/payments").tenant(tenant)), 405, "method-not-allowed");
    }

    @Test
    void methodNotAllowedNamesTheAllowedMethods() {
        // RFC 9110 §15.5.6: a 405 response MUST carry Allow.
        assertEquals("GET", LambdaClient.call(request("DELETE", "/payments/x").tenant(tenant)).header("Allow"));
        assertEquals("POST", LambdaClient.call(request("GET", "/payments").tenant(tenant)).header("Allow"));
    }

    @Test
    void unknownRouteIsNotFound() {
        assertProblem(LambdaClient.call(request("GET", "/refunds").tenant(tenant)), 404, "not-found");
        assertProblem(LambdaClient.call(request("POST", "/paymentsx").tenant(tenant)), 404, "not-found");
        assertProblem(LambdaClient.call(request("GET", "/").tenant(tenant)), 404, "not-found");
    }
}
