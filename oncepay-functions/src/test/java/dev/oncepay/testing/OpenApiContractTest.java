package dev.oncepay.testing;

import dev.oncepay.testing.LambdaClient.ApiResponse;

import dev.oncepay.testkit.HttpApiEvents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.api.ProblemType;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.RefundStatus;
import dev.oncepay.webhook.WebhookOutcome;
import io.swagger.v3.oas.models.SpecVersion;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document parses as OpenAPI 3.1, names every problem type the code has, and the hook
 * every function test passes through ({@link OpenApiContract}) accepts a documented answer and
 * rejects an undocumented status, field, header or media type. The function tests themselves
 * prove that the real answers validate.
 */
class OpenApiContractTest {
    private static final String ID = "pay_0123456789abcdef0123456789abcdef";
    private static final OpenApiContract CONTRACT = OpenApiContract.document();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theDocumentParsesAsOpenApi31WithoutMessages() throws IOException {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(documentText(), null, options);

        assertTrue(result.getMessages() == null || result.getMessages().isEmpty(), () -> "" + result.getMessages());
        assertEquals(SpecVersion.V31, result.getOpenAPI().getSpecVersion());
        assertEquals("3.1.0", result.getOpenAPI().getOpenapi());
        assertEquals(List.of("/payments", "/payments/{id}", "/payments/{id}/refunds",
                "/payments/{id}/refunds/{refundId}", "/wallets/{walletId}", "/wallets/{walletId}/credits",
                "/wallets/{walletId}/debits", "/webhooks/{provider}", "/admin/payments",
                "/admin/payments/{id}", "/admin/payments/{id}/resolve", "/admin/orders",
                "/admin/payments/{id}/deliveries", "/admin/endpoints/{tenant}/{endpoint}/deliveries",
                "/admin/endpoints/{tenant}/{endpoint}/redeliver", "/admin/events/{eventId}/redeliver"),
                new ArrayList<>(result.getOpenAPI().getPaths().keySet()));
        assertEquals("http", result.getOpenAPI().getComponents().getSecuritySchemes().get("merchantJwt").getType().toString());
        assertEquals("awsSigv4", result.getOpenAPI().getComponents().getSecuritySchemes().get("operatorSigV4")
                .getExtensions().get("x-amazon-apigateway-authtype"));
    }

    @Test
    void everyProblemTypeOfTheCodeIsDocumentedWithItsTitleAndStatus() {
        Map<String, JsonNode> documented = new LinkedHashMap<>();
        JsonNode schemas = CONTRACT.tree().at("/components/schemas");
        for (Iterator<String> names = schemas.fieldNames(); names.hasNext();) {
            JsonNode schema = schemas.get(names.next());
            if (schema.at("/properties/type").has("const")) {
                documented.put(schema.at("/properties/type/const").asText(), schema);
            }
        }
        for (ProblemType type : ProblemType.values()) {
            JsonNode schema = documented.get(type.uri());
            assertTrue(schema != null, type + " has no problem schema");
            assertEquals(type.title(), schema.at("/properties/title/const").asText(), type.name());
            assertEquals(type.status(), schema.at("/properties/status/const").asInt(), type.name());
        }
    }

    @Test
    void theDocumentsEnumerationsAreTheCodes() {
        assertEquals(Arrays.stream(WebhookOutcome.values()).map(WebhookOutcome::apiName).collect(Collectors.toSet()),
                enumAt("/components/schemas/WebhookReceipt/properties/outcome/enum"));
        assertEquals(Arrays.stream(PaymentStatus.values()).map(s -> s.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet()), enumAt("/components/schemas/InternalStatus/enum"));
        Set<String> publicStatuses = Arrays.stream(PaymentStatus.values()).map(PaymentStatus::apiName)
                .collect(Collectors.toCollection(HashSet::new));
        publicStatuses.add("requires_action");
        assertEquals(publicStatuses, enumAt("/components/schemas/Payment/properties/status/enum"));
        assertEquals(Arrays.stream(RefundStatus.values()).map(RefundStatus::apiName).collect(Collectors.toSet()),
                enumAt("/components/schemas/Refund/properties/status/enum"));
        assertEquals(Arrays.stream(Actor.Kind.values()).map(k -> k.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet()), enumAt("/components/schemas/Actor/properties/kind/enum"));
    }

    @Test
    void aDocumentedAnswerPasses() {
        assertEquals(List.of(), CONTRACT.violations("POST", "/payments", created(payment("succeeded"))));
        assertEquals(List.of(), CONTRACT.violations("GET", "/payments/" + ID,
                answer(200, "application/json", payment("needs_review", "reviewReason", "conflicting_facts"), Map.of())));
        assertEquals(List.of(), CONTRACT.violations("POST", "/payments", answer(202, "application/json",
                payment("requires_action", "clientSecret", "pi_1_secret_2", "nextAction", Map.of("type", "use_stripe_sdk")),
                Map.of("Location", "/payments/" + ID, "Retry-After", "10", "Idempotent-Replayed", "true"))));
        assertEquals(List.of(), CONTRACT.violations("GET", "/payments", methodNotAllowed("POST")));
        assertEquals(List.of(), CONTRACT.violations("GET", "/refunds",
                problem(404, "not-found", "Not found", Map.of(), Map.of())));
    }

    @Test
    void anUndocumentedStatusFails() {
        List<String> violations = CONTRACT.violations("POST", "/payments",
                answer(418, "application/json", payment("succeeded"), Map.of()));

        assertEquals(List.of("status 418 is not documented for POST /payments"), violations);
    }

    @Test
    void anUndocumentedFieldFails() {
        Map<String, Object> body = payment("succeeded");
        body.put("cardNumber", "4242424242424242");

        assertViolation(CONTRACT.violations("POST", "/payments", created(body)), "cardNumber");
    }

    @Test
    void aFieldOfTheWrongShapeOrStateFails() {
        assertViolation(CONTRACT.violations("POST", "/payments", created(payment("pending"))), "/status");
        assertViolation(CONTRACT.violations("GET", "/payments/" + ID,
                answer(200, "application/json", payment("succeeded", "reviewReason", "conflicting_facts"), Map.of())),
                "reviewReason");
        assertViolation(CONTRACT.violations("GET", "/payments/" + ID,
                answer(200, "application/json", payment("requires_action"), Map.of())), "clientSecret");
        Map<String, Object> floatAmount = payment("succeeded");
        floatAmount.put("amount", 42.5);
        assertViolation(CONTRACT.violations("POST", "/payments", created(floatAmount)), "/amount");
    }

    @Test
    void aMissingRequiredHeaderOrAnUndocumentedHeaderFails() {
        assertViolation(CONTRACT.violations("POST", "/payments",
                answer(202, "application/json", payment("pending"), Map.of("Location", "/payments/" + ID))),
                "required header Retry-After is missing");
        assertViolation(CONTRACT.violations("POST", "/payments", answer(201, "application/json", payment("succeeded"),
                Map.of("Location", "/payments/" + ID, "X-Debug", "1"))), "header X-Debug is not documented");
        assertViolation(CONTRACT.violations("POST", "/payments", answer(202, "application/json", payment("pending"),
                Map.of("Location", "/payments/" + ID, "Retry-After", "soon"))), "header Retry-After");
    }

    @Test
    void aProblemOfTheWrongTypeTitleOrMembersFails() {
        assertViolation(CONTRACT.violations("POST", "/payments",
                problem(409, "idempotency-key-reused", "The Idempotency-Key was used with a different request",
                        Map.of(), Map.of("Retry-After", "1"))), "body");
        assertViolation(CONTRACT.violations("GET", "/payments/" + ID,
                problem(404, "not-found", "Nothing here", Map.of(), Map.of())), "/title");
        assertViolation(CONTRACT.violations("GET", "/payments/" + ID,
                problem(404, "not-found", "Not found", Map.of("paymentId", ID), Map.of())), "paymentId");
    }

    @Test
    void aMediaTypeOnlyApiGatewayAnswersWithFailsForTheFunction() {
        assertViolation(CONTRACT.violations("POST", "/payments",
                answer(503, "application/json", Map.of("message", "Service Unavailable"), Map.of("Retry-After", "5"))),
                "answered by api-gateway");
        assertViolation(CONTRACT.violations("POST", "/payments", answer(201, "text/plain", payment("succeeded"),
                Map.of("Location", "/payments/" + ID))), "Content-Type text/plain");
    }

    @Test
    void undocumentedRoutesMayOnlyBe404AndOtherMethods405NamingTheDocumentedOnes() {
        assertViolation(CONTRACT.violations("GET", "/refunds", answer(200, "application/json", Map.of(), Map.of())),
                "only 404");
        assertViolation(CONTRACT.violations("DELETE", "/payments/" + ID, answer(200, "application/json",
                payment("succeeded"), Map.of())), "only 405");
        assertViolation(CONTRACT.violations("DELETE", "/payments/" + ID, methodNotAllowed("GET, DELETE")),
                "Allow: GET, DELETE");
        assertViolation(CONTRACT.violations("PUT", "/payments", problem(405, "method-not-allowed",
                "Method not allowed", Map.of(), Map.of())), "required header Allow is missing");
    }

    @Test
    void pathTemplatesMatchOneSegmentEach() {
        assertEquals("/payments/{id}", CONTRACT.templateOf("/payments/" + ID));
        assertEquals("/admin/payments/{id}/resolve", CONTRACT.templateOf("/admin/payments/" + ID + "/resolve"));
        assertEquals("/admin/payments", CONTRACT.templateOf("/admin/payments"));
        assertEquals(null, CONTRACT.templateOf("/payments/a/b"));
        assertEquals(null, CONTRACT.templateOf("/payments/"));
    }

    @Test
    void aViolationIsRecordedForTheTestAndThrown() {
        String event = HttpApiEvents.request("POST", "/payments").json();

        AssertionError thrown = assertThrows(AssertionError.class, () -> OpenApiContract.check(event,
                answer(418, "application/json", payment("succeeded"), Map.of())));

        assertTrue(thrown.getMessage().contains("status 418"), thrown.getMessage());
        List<String> recorded = OpenApiContract.drainRecorded();
        assertEquals(1, recorded.size(), recorded::toString);
        assertTrue(recorded.get(0).startsWith("POST /payments answered 418"), recorded.get(0));
    }

    @Test
    void aSchemaKeywordTheValidatorDoesNotKnowIsAnErrorNotALicence() {
        OpenApiContract misspelt = new OpenApiContract("openapi/misspelt-keyword.yaml");

        RuntimeException refused = assertThrows(RuntimeException.class, () -> misspelt.violations("POST", "/payments",
                answer(201, "application/json", Map.of(), Map.of())));

        assertTrue(String.valueOf(refused.getMessage()).contains("requird"), refused::toString);
    }

    private static Set<String> enumAt(String pointer) {
        Set<String> values = new HashSet<>();
        CONTRACT.tree().at(pointer).forEach(v -> values.add(v.asText()));
        return values;
    }

    private static void assertViolation(List<String> violations, String expected) {
        assertTrue(violations.stream().anyMatch(v -> v.contains(expected)),
                () -> "expected a violation mentioning \"" + expected + "\", got " + violations);
    }

    private static Map<String, Object> payment(String status, Object... extra) {
        Map<String, Object> payment = new LinkedHashMap<>();
        payment.put("id", ID);
        payment.put("status", status);
        payment.put("amount", 4200);
        payment.put("currency", "EUR");
        payment.put("reference", "order_1");
        payment.put("providerPaymentId", status.equals("succeeded") ? "ch_1" : null);
        payment.put("createdAt", "2026-11-30T10:00:00Z");
        payment.put("updatedAt", "2026-11-30T10:00:01Z");
        for (int i = 0; i < extra.length; i += 2) {
            payment.put((String) extra[i], extra[i + 1]);
        }
        return payment;
    }

    private static ApiResponse created(Map<String, Object> payment) {
        return answer(201, "application/json", payment, Map.of("Location", "/payments/" + ID));
    }

    private static ApiResponse methodNotAllowed(String allow) {
        return problem(405, "method-not-allowed", "Method not allowed", Map.of(), Map.of("Allow", allow));
    }

    private static ApiResponse problem(int status, String slug, String title, Map<String, Object> members,
            Map<String, String> headers) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "https://oncepay.dev/problems/" + slug);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", "why");
        body.putAll(members);
        return answer(status, "application/problem+json", body, headers);
    }

    private static ApiResponse answer(int status, String contentType, Object body, Map<String, String> headers) {
        Map<String, Object> output = new LinkedHashMap<>();
        output.put("statusCode", status);
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Content-Type", contentType);
        all.putAll(headers);
        output.put("headers", all);
        try {
            output.put("body", JSON.writeValueAsString(body));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        output.put("isBase64Encoded", false);
        return ApiResponse.of(JSON.valueToTree(output));
    }

    private static String documentText() throws IOException {
        try (InputStream in = OpenApiContract.class.getClassLoader().getResourceAsStream(OpenApiContract.RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
