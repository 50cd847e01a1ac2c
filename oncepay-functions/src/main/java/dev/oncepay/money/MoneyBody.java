package dev.oncepay.money;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.validation.FieldError;
import dev.oncepay.validation.InvalidRequestException;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Currency;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The strict JSON body of a request that moves money: a payment's or a wallet credit's or debit's.
 * Each names its own fields, and both read amount, currency, reference and text alike: money is an integer
 * in minor units with an ISO 4217 code (design rule 10). Problems are collected, so one answer
 * names them all.
 */
public final class MoneyBody {
    /** Stripe's ceiling for one charge (8 digits of minor units). */
    public static final long MAX_AMOUNT = 99_999_999L;
    static final int MAX_REFERENCE = 128;

    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final JsonNode root;
    private final List<FieldError> errors = new ArrayList<>();

    private MoneyBody(JsonNode root) {
        this.root = root;
    }

    /**
     * @param body the request body, already checked to be the client's UTF-8 ({@code HttpApiEvent#utf8Body})
     * @param fields the fields the body may have; any other is an error
     * @throws InvalidRequestException naming {@code body} if it is no JSON object
     */
    public static MoneyBody read(byte[] body, Set<String> fields) {
        MoneyBody read = new MoneyBody(readObject(body));
        for (Iterator<String> names = read.root.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!fields.contains(name)) {
                read.reject(name, "unknown field");
            }
        }
        return read;
    }

    /** Canonical form for a request fingerprint: the fields in the given order, no insignificant white space. */
    public static String canonicalJson(Map<String, Object> fields) {
        try {
            return STRICT.writeValueAsString(fields);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The field as sent, or {@code null}: for a field only one kind of body has. */
    public JsonNode field(String name) {
        return root.get(name);
    }

    public void reject(String field, String message) {
        errors.add(new FieldError(field, message));
    }

    /** @throws InvalidRequestException naming every problem found so far */
    public void requireValid() {
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
    }

    /** The required {@code amount}: a positive integer of minor units up to {@link #MAX_AMOUNT}; 0 if invalid. */
    public long amount() {
        JsonNode node = root.get("amount");
        if (node == null || node.isNull()) {
            reject("amount", "required");
        } else if (!node.isIntegralNumber()) {
            reject("amount", "must be an integer number of minor units");
        } else if (node.bigIntegerValue().compareTo(BigInteger.ONE) < 0) {
            reject("amount", "must be positive");
        } else if (node.bigIntegerValue().compareTo(BigInteger.valueOf(MAX_AMOUNT)) > 0) {
            reject("amount", "must be at most " + MAX_AMOUNT);
        } else {
            return node.longValue();
        }
        return 0;
    }

    /** The required {@code currency}: an ISO 4217 code in upper case; {@code null} if invalid. */
    public String currency() {
        JsonNode node = root.get("currency");
        if (node == null || node.isNull()) {
            reject("currency", "required");
            return null;
        }
        String code = node.isTextual() ? node.textValue() : null;
        if (code == null || !CURRENCY.matcher(code).matches() || !isIso4217(code)) {
            reject("currency", "must be an ISO 4217 code in upper case, like EUR");
            return null;
        }
        return code;
    }

    /** The required {@code reference}: the merchant's own id of what the money is for; {@code null} if invalid. */
    public String reference() {
        return text("reference", true, MAX_REFERENCE);
    }

    /** A text field of at most {@code max} characters, without control characters; {@code null} if absent or invalid. */
    public String text(String field, boolean required, int max) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            if (required) {
                reject(field, "required");
            }
            return null;
        }
        if (!node.isTextual() || node.textValue().isBlank()) {
            reject(field, "must be a non-empty string");
            return null;
        }
        String value = node.textValue();
        if (value.length() > max) {
            reject(field, "must be at most " + max + " characters");
            return null;
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            reject(field, "must not contain control characters");
            return null;
        }
        // A JSON escape such as "\ud800" decodes to half a character, which no store keeps intact.
        if (value.codePoints().anyMatch(c -> Character.getType(c) == Character.SURROGATE)) {
            reject(field, "must be valid Unicode text (no unpaired surrogates)");
            return null;
        }
        return value;
    }

    private static JsonNode readObject(byte[] body) {
        if (body.length == 0) {
            throw new InvalidRequestException("body", "a JSON object is required");
        }
        try {
            JsonNode root = STRICT.readTree(body);
            if (root instanceof ObjectNode) {
                return root;
            }
        } catch (IOException malformed) {
            throw new InvalidRequestException("body", "malformed JSON");
        }
        throw new InvalidRequestException("body", "must be a JSON object");
    }

    private static boolean isIso4217(String code) {
        try {
            // Pseudo-currencies (XXX, XTS, XAU, XDR, ...) have no minor unit: not money to charge.
            return Currency.getInstance(code).getDefaultFractionDigits() >= 0;
        } catch (IllegalArgumentException unknown) {
            return false;
        }
    }
}
