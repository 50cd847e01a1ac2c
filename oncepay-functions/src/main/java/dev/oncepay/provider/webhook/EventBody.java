package dev.oncepay.provider.webhook;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reading a verified webhook body, the same way for every provider's format: UTF-8, one JSON
 * object without duplicate keys, and fields bounded before they reach item keys and logs.
 * Every refusal is a {@link MalformedEventException} naming the field.
 */
public final class EventBody {
    /** Ids (events, charges, payments) end up in item keys: bounded. */
    public static final int MAX_ID = 255;
    public static final int MAX_TYPE = 128;

    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final ObjectMapper STRICT = JsonMapper.builder()
            // A signed body with two values for one field could be read differently by two parsers.
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    private EventBody() {
    }

    /** The body as text, for the journal; it must be UTF-8. */
    public static String text(byte[] body) {
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

    /** The body's JSON object. */
    public static JsonNode object(byte[] body) {
        JsonNode root;
        try {
            root = STRICT.readTree(body);
        } catch (IOException malformed) {
            throw new MalformedEventException("body", "malformed JSON");
        }
        if (root == null || !root.isObject()) {
            throw new MalformedEventException("body", "must be a JSON object");
        }
        return root;
    }

    /** A printable-ASCII token without spaces, 1 to {@code max} characters; {@code null} if absent and optional. */
    public static String token(JsonNode node, String field, int max, boolean required) {
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

    /** The token at {@code node}, or {@code null} if it is absent or not a token (for audit-only fields). */
    public static String tokenOrNull(JsonNode node, int max) {
        return node != null && node.isTextual() && isToken(node.textValue(), max) ? node.textValue() : null;
    }

    private static boolean isToken(String value, int max) {
        return !value.isEmpty() && value.length() <= max && value.chars().allMatch(c -> c > 0x20 && c < 0x7f);
    }

    /** A required amount in minor units: a non-negative integer. */
    public static long amount(JsonNode node, String field) {
        if (node == null || node.isNull()) {
            throw new MalformedEventException(field, "required");
        }
        if (!node.isIntegralNumber() || node.bigIntegerValue().signum() < 0
                || node.bigIntegerValue().compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0) {
            throw new MalformedEventException(field, "must be a non-negative integer of minor units");
        }
        return node.longValue();
    }

    /** A required ISO 4217 code, in upper case: some providers write it in lower case (Stripe does), the code is the same. */
    public static String currency(JsonNode node, String field) {
        String code = node != null && node.isTextual() ? node.textValue().toUpperCase(Locale.ROOT) : null;
        if (code == null || !CURRENCY.matcher(code).matches()) {
            throw new MalformedEventException(field, "must be a three-letter ISO 4217 code");
        }
        return code;
    }
}
