package dev.oncepay.webhook;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.oncepay.payment.PaymentStatus;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A verified provider event (design §3):
 * {@code {"id":"evt_…","type":"charge.succeeded|charge.failed","data":{"chargeId","reference","status","amount","currency"}}}.
 * Unknown fields are ignored (providers add fields); events of other types are accepted with
 * whatever reference they carry, for the audit journal only.
 *
 * @param reference {@code data.reference}: oncepay's payment id; may be absent for unknown types
 * @param fact present for the charge types oncepay applies
 * @param json the body as received (UTF-8), for the journal
 */
public record ProviderEvent(String id, String type, String reference, Optional<ChargeFact> fact, String json) {
    public static final String CHARGE_SUCCEEDED = "charge.succeeded";
    public static final String CHARGE_FAILED = "charge.failed";
    static final int MAX_ID = 255;
    static final int MAX_TYPE = 128;

    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final ObjectMapper STRICT = JsonMapper.builder()
            // A signed body with two values for one field could be read differently by two parsers.
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * What a charge event says about the charge.
     *
     * @param outcome {@code SUCCEEDED} or {@code FAILED}
     * @param chargeId the provider's charge id (may be absent)
     * @param declineCode present only if the provider sent one
     */
    public record ChargeFact(PaymentStatus outcome, String chargeId, long amount, String currency,
            String declineCode) {
    }

    public static ProviderEvent parse(byte[] body) {
        String text = utf8(body);
        JsonNode root;
        try {
            root = STRICT.readTree(body);
        } catch (IOException malformed) {
            throw new MalformedEventException("body", "malformed JSON");
        }
        if (root == null || !root.isObject()) {
            throw new MalformedEventException("body", "must be a JSON object");
        }
        String id = token(root.get("id"), "id", MAX_ID, true);
        String type = token(root.get("type"), "type", MAX_TYPE, true);
        JsonNode data = root.get("data");
        Optional<PaymentStatus> outcome = switch (type) {
            case CHARGE_SUCCEEDED -> Optional.of(PaymentStatus.SUCCEEDED);
            case CHARGE_FAILED -> Optional.of(PaymentStatus.FAILED);
            default -> Optional.empty();
        };
        if (outcome.isEmpty()) {
            // Not ours to apply: keep what identifies it, validate nothing else.
            String reference = data != null && data.isObject() && data.path("reference").isTextual()
                    && isToken(data.get("reference").textValue(), MAX_ID) ? data.get("reference").textValue() : null;
            return new ProviderEvent(id, type, reference, Optional.empty(), text);
        }
        if (data == null || !data.isObject()) {
            throw new MalformedEventException("data", "required object");
        }
        String reference = token(data.get("reference"), "data.reference", MAX_ID, true);
        String chargeId = token(data.get("chargeId"), "data.chargeId", MAX_ID, false);
        String declineCode = token(data.get("declineCode"), "data.declineCode", MAX_ID, false);
        long amount = amount(data.get("amount"));
        String currency = currency(data.get("currency"));
        JsonNode status = data.get("status");
        if (status != null && !status.isNull()) {
            String expected = outcome.get() == PaymentStatus.SUCCEEDED ? "succeeded" : "failed";
            if (!status.isTextual() || !status.textValue().equals(expected)) {
                throw new MalformedEventException("data.status", "must be \"" + expected + "\" in a " + type + " event");
            }
        }
        return new ProviderEvent(id, type, reference,
                Optional.of(new ChargeFact(outcome.get(), chargeId, amount, currency, declineCode)), text);
    }

    private static String utf8(byte[] body) {
        if (body.length == 0) {
            throw new MalformedEventException("body", "a JSON object is required");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException notUtf8) {
            throw new MalformedEventException("body", "must be UTF-8");
        }
    }

    /** Ids end up in item keys and logs: printable ASCII without spaces, bounded. */
    private static String token(JsonNode node, String field, int max, boolean required) {
        if (node == null || node.isNull()) {
            if (required) {
                throw new MalformedEventException(field, "required");
            }
            return null;
        }
        if (!node.isTextual() || !isToken(node.textValue(), max)) {
            throw new MalformedEventException(field, "must be 1-" + max + " printable ASCII characters");
        }
        return node.textValue();
    }

    private static boolean isToken(String value, int max) {
        return !value.isEmpty() && value.length() <= max && value.chars().allMatch(c -> c > 0x20 && c < 0x7f);
    }

    private static long amount(JsonNode node) {
        if (node == null || node.isNull()) {
            throw new MalformedEventException("data.amount", "required");
        }
        if (!node.isIntegralNumber() || node.bigIntegerValue().signum() < 0
                || node.bigIntegerValue().compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0) {
            throw new MalformedEventException("data.amount", "must be a non-negative integer of minor units");
        }
        return node.longValue();
    }

    private static String currency(JsonNode node) {
        // Some providers write currencies in lower case (Stripe does); the code is the same.
        String code = node != null && node.isTextual() ? node.textValue().toUpperCase(Locale.ROOT) : null;
        if (code == null || !CURRENCY.matcher(code).matches()) {
            throw new MalformedEventException("data.currency", "must be a three-letter ISO 4217 code");
        }
        return code;
    }
}
