package dev.oncepay.charge;

import static dev.oncepay.testkit.HttpApiEvents.postPayment;
import static dev.oncepay.testing.Problems.assertProblem;
import static dev.oncepay.testing.Problems.errorFields;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Input: the body must be the client's bytes, valid UTF-8. Whatever replaced or lost
 * bytes on the way (a lossy gateway's U+FFFD, an unpaired surrogate that no bytes decode to, a
 * "base64" body that is not) is a {@code 400} naming {@code body}: nothing stored, nothing
 * written, no provider call, and the key stays usable.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class Utf8BodyTest extends ChargeTestSupport {
    static final String GOOD = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\"}";
    private static final String DESCRIBED = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\","
            + "\"description\":\"%s\"}";
    private static final Set<String> WRITES = Set.of("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
            "TransactWriteItems");
    private static final String SURROGATE_PLACEHOLDER = "SURROGATE_PLACEHOLDER";

    enum Damaged {
        /** What a gateway that decodes lossily makes of invalid bytes: text with U+FFFD. */
        REPLACEMENT_CHARACTER_IN_TEXT,
        /** A text body with an unpaired surrogate (JSON escape in the event): no bytes are that. */
        UNPAIRED_SURROGATE_IN_TEXT,
        /** Bytes that are not UTF-8, base64-encoded by the gateway. */
        INVALID_BYTES_IN_BASE64,
        /** An overlong encoding of "/" (C0 AF): not UTF-8, although some decoders accept it. */
        OVERLONG_ENCODING_IN_BASE64,
        /** A UTF-8-encoded surrogate (ED A0 80): not UTF-8. */
        ENCODED_SURROGATE_IN_BASE64,
        /** Flagged base64, but not base64. */
        NOT_BASE64
    }

    @ParameterizedTest
    @EnumSource(Damaged.class)
    void aDamagedBodyIs400AndChangesNothing(Damaged damaged) {
        String key = newKey();
        dynamoRequests.reset();

        ApiResponse rejected = LambdaClient.call(eventJson(damaged, key));

        assertProblem(rejected, 400, "invalid-request");
        assertEquals(Set.of("body"), errorFields(rejected), rejected::body);
        assertTrue(storedItems().isEmpty(), "nothing stored");
        Map<String, Long> requests = dynamoRequests.snapshot();
        assertTrue(requests.keySet().stream().noneMatch(WRITES::contains), "no DynamoDB write: " + requests);
        assertEquals(0, sim.chargeRequests(), "no provider call");

        ApiResponse corrected = post(key, GOOD);
        assertEquals(201, corrected.status(), corrected::toString);
        assertNull(corrected.header("Idempotent-Replayed"));
    }

    @Test
    void aJsonEscapedUnpairedSurrogateIs400NamingTheFieldAndChangesNothing() {
        String key = newKey();
        // Valid UTF-8 bytes (ASCII) whose JSON string decodes to half a character.
        ApiResponse rejected = post(key, DESCRIBED.formatted("caf\\ud800"));

        assertProblem(rejected, 400, "invalid-request");
        assertEquals(Set.of("description"), errorFields(rejected), rejected::body);
        assertTrue(storedItems().isEmpty(), "nothing stored");
        assertEquals(0, sim.chargeRequests(), "no provider call");
        assertEquals(201, post(key, GOOD).status());
    }

    /** The API Gateway event JSON as it reaches the function. */
    private String eventJson(Damaged damaged, String key) {
        return switch (damaged) {
            case REPLACEMENT_CHARACTER_IN_TEXT -> postPayment(tenant, key, DESCRIBED.formatted("caf\uFFFD")).json();
            // Written as a JSON escape: as a raw char it could not even be sent as UTF-8.
            case UNPAIRED_SURROGATE_IN_TEXT -> postPayment(tenant, key, DESCRIBED.formatted(SURROGATE_PLACEHOLDER))
                    .json().replace(SURROGATE_PLACEHOLDER, "\\ud800");
            case INVALID_BYTES_IN_BASE64 -> postPayment(tenant, key, GOOD)
                    .base64Body(withBytes(DESCRIBED.formatted("caf@"), (byte) 0xE9)).json();
            case OVERLONG_ENCODING_IN_BASE64 -> postPayment(tenant, key, GOOD)
                    .base64Body(withBytes(DESCRIBED.formatted("a@b"), (byte) 0xC0, (byte) 0xAF)).json();
            case ENCODED_SURROGATE_IN_BASE64 -> postPayment(tenant, key, GOOD)
                    .base64Body(withBytes(DESCRIBED.formatted("x@"), (byte) 0xED, (byte) 0xA0, (byte) 0x80)).json();
            case NOT_BASE64 -> {
                byte[] raw = GOOD.getBytes(StandardCharsets.UTF_8);
                yield postPayment(tenant, key, GOOD).base64Body(raw).json()
                        .replace(Base64.getEncoder().encodeToString(raw), "not base64: " + GOOD.replace("\"", "'"));
            }
        };
    }

    /** {@code text} as UTF-8 with its {@code @} replaced by {@code bytes}. */
    private static byte[] withBytes(String text, byte... bytes) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        int at = text.indexOf('@');
        byte[] out = new byte[utf8.length - 1 + bytes.length];
        System.arraycopy(utf8, 0, out, 0, at);
        System.arraycopy(bytes, 0, out, at, bytes.length);
        System.arraycopy(utf8, at + 1, out, at + bytes.length, utf8.length - at - 1);
        return out;
    }
}
