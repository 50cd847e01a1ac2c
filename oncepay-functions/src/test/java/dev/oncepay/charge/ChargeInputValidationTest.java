package dev.oncepay.charge;

import static dev.oncepay.testkit.HttpApiEvents.postPayment;
import static dev.oncepay.testing.Problems.assertProblem;
import static dev.oncepay.testing.Problems.errorFields;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Design rule 9 through the function's real entry point: every bad request gets a {@code 400}
 * problem naming the offending field, and changes nothing — no item, no DynamoDB write, no
 * provider call — so the same key with a corrected body then works.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ChargeInputValidationTest extends ChargeTestSupport {
    static final String GOOD = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\"}";
    private static final Set<String> WRITES = Set.of("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
            "TransactWriteItems");

    /** One bad request: how to build it, which fields the 400 must name, whether its key is usable. */
    enum BadRequest {
        MALFORMED_JSON(body("{\"amount\":4200,\"currency\":\"EUR\","), "body"),
        EMPTY_BODY(body(""), "body"),
        WHITESPACE_BODY(body(" \n\t "), "body"),
        JSON_ARRAY_BODY(body("[" + GOOD + "]"), "body"),
        JSON_NULL_BODY(body("null"), "body"),
        JSON_STRING_BODY(body("\"amount=4200\""), "body"),
        NOT_UTF8_BODY((tenant, key) -> postPayment(tenant, key, GOOD).base64Body(notUtf8()), "body"),
        DUPLICATE_KEYS(body("{\"amount\":4200,\"amount\":1,\"currency\":\"EUR\",\"reference\":\"order_9182\"}"), "body"),
        TRAILING_CONTENT(body(GOOD + "{\"amount\":1}"), "body"),

        MISSING_KEY((tenant, key) -> postPayment(tenant, null, GOOD), "Idempotency-Key"),
        EMPTY_KEY(key(""), "Idempotency-Key"),
        BLANK_KEY(key("   "), "Idempotency-Key"),
        KEY_OF_256_CHARS(key("k".repeat(256)), "Idempotency-Key"),
        NON_ASCII_KEY(key("schlüssel-1"), "Idempotency-Key"),
        CONTROL_CHAR_KEY(key("order\u0001one"), "Idempotency-Key"),
        TAB_IN_KEY(key("order\tone"), "Idempotency-Key"),
        DEL_IN_KEY(key("order\u007fone"), "Idempotency-Key"),

        AMOUNT_MISSING(body("{\"currency\":\"EUR\",\"reference\":\"order_9182\"}"), "amount"),
        AMOUNT_NULL(amount("null"), "amount"),
        AMOUNT_ZERO(amount("0"), "amount"),
        AMOUNT_NEGATIVE(amount("-4200"), "amount"),
        AMOUNT_FRACTIONAL(amount("42.5"), "amount"),
        AMOUNT_FRACTIONAL_ZERO(amount("42.0"), "amount"),
        AMOUNT_EXPONENT_HUGE(amount("1e20"), "amount"),
        AMOUNT_EXPONENT_INTEGRAL(amount("4.2e3"), "amount"),
        AMOUNT_ABOVE_MAXIMUM(amount("100000000"), "amount"),
        AMOUNT_BEYOND_LONG(amount("99999999999999999999999"), "amount"),
        AMOUNT_AS_STRING(amount("\"4200\""), "amount"),
        AMOUNT_AS_BOOLEAN(amount("true"), "amount"),

        CURRENCY_MISSING(body("{\"amount\":4200,\"reference\":\"order_9182\"}"), "currency"),
        CURRENCY_LOWERCASE(currency("\"eur\""), "currency"),
        CURRENCY_UNKNOWN(currency("\"XYZ\""), "currency"),
        CURRENCY_NO_MONEY(currency("\"XXX\""), "currency"),
        CURRENCY_TESTING_CODE(currency("\"XTS\""), "currency"),
        CURRENCY_NUMERIC(currency("978"), "currency"),
        CURRENCY_NUMERIC_CODE(currency("\"978\""), "currency"),
        CURRENCY_EMPTY(currency("\"\""), "currency"),
        CURRENCY_TOO_LONG(currency("\"EURO\""), "currency"),

        REFERENCE_MISSING(body("{\"amount\":4200,\"currency\":\"EUR\"}"), "reference"),
        REFERENCE_EMPTY(reference("\"\""), "reference"),
        REFERENCE_BLANK(reference("\"   \""), "reference"),
        REFERENCE_TOO_LONG(reference("\"" + "r".repeat(129) + "\""), "reference"),
        REFERENCE_NOT_A_STRING(reference("9182"), "reference"),
        REFERENCE_WITH_CONTROL_CHAR(reference("\"order\\n9182\""), "reference"),
        DESCRIPTION_TOO_LONG(body("{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\",\"description\":\""
                + "d".repeat(501) + "\"}"), "description"),
        DESCRIPTION_NOT_A_STRING(body("{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\","
                + "\"description\":{\"text\":\"x\"}}"), "description"),

        UNKNOWN_FIELD(body("{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\",\"capture\":false}"),
                "capture"),
        SEVERAL_PROBLEMS(body("{\"amount\":0,\"currency\":\"eur\",\"customer\":\"c 1\",\"shipping\":{}}"),
                "amount", "currency", "reference", "customer", "shipping"),

        // Provider tokens: ids, never card data, whatever the tenant's provider.
        PAYMENT_METHOD_EMPTY(instrument("\"paymentMethod\":\"\""), "paymentMethod"),
        PAYMENT_METHOD_NOT_A_STRING(instrument("\"paymentMethod\":{\"id\":\"pm_card_visa\"}"), "paymentMethod"),
        PAYMENT_METHOD_CARD_NUMBER(instrument("\"paymentMethod\":\"4242424242424242\""), "paymentMethod"),
        PAYMENT_METHOD_WITH_SPACES(instrument("\"paymentMethod\":\"4242 4242 4242 4242\""), "paymentMethod"),
        PAYMENT_METHOD_TOO_LONG(instrument("\"paymentMethod\":\"pm_" + "x".repeat(253) + "\""), "paymentMethod"),
        CUSTOMER_WITH_QUOTE(instrument("\"paymentMethod\":\"pm_card_visa\",\"customer\":\"cus_1'\""), "customer"),

        CONTENT_TYPE_TEXT((tenant, key) -> postPayment(tenant, key, GOOD).header("content-type", "text/plain"),
                "Content-Type"),
        CONTENT_TYPE_FORM((tenant, key) -> postPayment(tenant, key, "amount=4200&currency=EUR&reference=order_9182")
                .header("content-type", "application/x-www-form-urlencoded"), "Content-Type"),
        CONTENT_TYPE_LOOKALIKE((tenant, key) -> postPayment(tenant, key, GOOD).header("content-type", "application/jsonx"),
                "Content-Type"),
        CONTENT_TYPE_MISSING((tenant, key) -> postPayment(tenant, key, GOOD).withoutHeader("content-type"),
                "Content-Type");

        final BiFunction<String, String, HttpApiEvents> event;
        final Set<String> fields;

        BadRequest(BiFunction<String, String, HttpApiEvents> event, String... fields) {
            this.event = event;
            this.fields = Set.of(fields);
        }

        /** A key that is itself invalid cannot be retried "with the same key". */
        boolean keyIsValid() {
            return !fields.contains("Idempotency-Key");
        }

        private static BiFunction<String, String, HttpApiEvents> body(String body) {
            return (tenant, key) -> postPayment(tenant, key, body);
        }

        private static BiFunction<String, String, HttpApiEvents> key(String badKey) {
            return (tenant, key) -> postPayment(tenant, badKey, GOOD);
        }

        private static BiFunction<String, String, HttpApiEvents> amount(String json) {
            return body("{\"amount\":" + json + ",\"currency\":\"EUR\",\"reference\":\"order_9182\"}");
        }

        private static BiFunction<String, String, HttpApiEvents> currency(String json) {
            return body("{\"amount\":4200,\"currency\":" + json + ",\"reference\":\"order_9182\"}");
        }

        private static BiFunction<String, String, HttpApiEvents> reference(String json) {
            return body("{\"amount\":4200,\"currency\":\"EUR\",\"reference\":" + json + "}");
        }

        private static BiFunction<String, String, HttpApiEvents> instrument(String fields) {
            return body("{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\"," + fields + "}");
        }

        private static byte[] notUtf8() {
            byte[] prefix = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_".getBytes(StandardCharsets.US_ASCII);
            byte[] invalid = {(byte) 0xC3, (byte) 0x28, (byte) 0xFF};
            byte[] suffix = "\"}".getBytes(StandardCharsets.US_ASCII);
            byte[] all = new byte[prefix.length + invalid.length + suffix.length];
            System.arraycopy(prefix, 0, all, 0, prefix.length);
            System.arraycopy(invalid, 0, all, prefix.length, invalid.length);
            System.arraycopy(suffix, 0, all, prefix.length + invalid.length, suffix.length);
            return all;
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = BadRequest.class, mode = EnumSource.Mode.EXCLUDE, names = "TRAILING_CONTENT")
    void badRequestIsRejectedNamingTheFieldAndStoresNothing(BadRequest bad) {
        assertRejectedAndNothingStored(bad);
    }

    @Test
    void contentAfterTheJsonObjectIsRejected() {
        // '{valid}{"amount":1}' is not one JSON object; today the first object is charged (201).
        assertRejectedAndNothingStored(BadRequest.TRAILING_CONTENT);
    }

    private void assertRejectedAndNothingStored(BadRequest bad) {
        String tenant = "val-" + bad.name().toLowerCase() + "-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        int providerCallsBefore = sim.chargeRequests();

        ApiResponse response = LambdaClient.call(bad.event.apply(tenant, key));

        assertProblem(response, 400, "invalid-request");
        assertEquals(bad.fields, errorFields(response), () -> "fields named by " + response.body());
        assertNothingStored(tenant, providerCallsBefore);

        if (bad.keyIsValid()) {
            // Nothing was remembered under the key: the corrected request is a first request.
            ApiResponse corrected = LambdaClient.call(postPayment(tenant, key, GOOD));
            assertEquals(201, corrected.status(), corrected::toString);
            assertNull(corrected.header("Idempotent-Replayed"), corrected::toString);
            assertEquals("succeeded", corrected.json().path("status").asText());
            assertEquals(1, sim.ledger().size(), "exactly the corrected request was charged");
            assertEquals(corrected.json().path("id").asText(), sim.ledger().get(0).reference());
        }
    }

    @Test
    void validBoundaryValuesAreAccepted() {
        String tenant = "val-bounds-" + UUID.randomUUID();
        // Each key pays an order of its own: one order paid under three keys would be refused
        // (the order guard), and the keys' validity is what is under test here.
        Map<String, HttpApiEvents> accepted = Map.of(
                "key of 255 characters",
                postPayment(tenant, "k".repeat(254) + "1", GOOD.replace("order_9182", "order_9183")),
                "key of 1 character", postPayment(tenant, "x", GOOD.replace("order_9182", "order_9184")),
                "key of every printable ASCII character",
                postPayment(tenant, printableAscii(), GOOD.replace("order_9182", "order_9185")),
                "smallest and largest amount",
                postPayment(tenant, UUID.randomUUID().toString(),
                        "{\"amount\":99999999,\"currency\":\"JPY\",\"reference\":\"" + "r".repeat(128) + "\"}"),
                "amount 1 with description and media type parameters",
                postPayment(tenant, UUID.randomUUID().toString(),
                        "{\"amount\":1,\"currency\":\"EUR\",\"reference\":\"order_1\",\"description\":\""
                                + "d".repeat(500) + "\"}")
                        .header("content-type", "application/json; charset=utf-8"));
        accepted.forEach((what, event) -> {
            ApiResponse response = LambdaClient.call(event);
            assertEquals(201, response.status(), () -> what + ": " + response);
        });
        assertEquals(accepted.size(), sim.ledger().size());
    }

    @Test
    void noTenantInTheAuthorizerContextIsUnauthenticatedAndStoresNothing() {
        long itemsBefore = StoredItems.count();
        int providerCallsBefore = sim.chargeRequests();

        ApiResponse response = LambdaClient.call(postPayment("ignored", UUID.randomUUID().toString(), GOOD).tenant(null));

        assertProblem(response, 401, "unauthenticated");
        assertEquals(itemsBefore, StoredItems.count(), "no item written");
        assertNoWrites();
        assertEquals(providerCallsBefore, sim.chargeRequests(), "no provider call");
    }

    @Test
    void blankTenantClaimIsUnauthenticated() {
        long itemsBefore = StoredItems.count();

        ApiResponse response = LambdaClient.call(postPayment(" ", UUID.randomUUID().toString(), GOOD));

        assertProblem(response, 401, "unauthenticated");
        assertEquals(itemsBefore, StoredItems.count(), "no item written");
        assertNoWrites();
    }

    @Test
    void tenantHeaderWithoutAuthorizerContextIsNotTrusted() {
        String tenant = "val-spoofed-" + UUID.randomUUID();
        long itemsBefore = StoredItems.count();
        int providerCallsBefore = sim.chargeRequests();

        ApiResponse response = LambdaClient.call(postPayment("ignored", UUID.randomUUID().toString(), GOOD)
                .tenant(null).header("x-tenant-id", tenant));

        assertProblem(response, 401, "unauthenticated");
        assertEquals(itemsBefore, StoredItems.count(), "no item written");
        assertTrue(StoredItems.ofTenant(tenant).isEmpty(), "nothing stored for the tenant the header claimed");
        assertNoWrites();
        assertEquals(providerCallsBefore, sim.chargeRequests(), "no provider call");
    }

    private void assertNothingStored(String tenant, int providerCallsBefore) {
        assertEquals(0, StoredItems.ofTenant(tenant).size(), "items stored for " + tenant);
        assertNoWrites();
        assertEquals(providerCallsBefore, sim.chargeRequests(), "provider calls");
        assertTrue(sim.ledger().isEmpty(), "ledger");
    }

    private void assertNoWrites() {
        Map<String, Long> calls = dynamoRequests.snapshot();
        assertTrue(calls.keySet().stream().noneMatch(WRITES::contains), () -> "DynamoDB writes: " + calls);
    }

    private static String printableAscii() {
        StringBuilder key = new StringBuilder();
        for (char c = 0x21; c <= 0x7e; c++) {
            key.append(c);
        }
        return key.append(' ').append(UUID.randomUUID()).toString();
    }
}
