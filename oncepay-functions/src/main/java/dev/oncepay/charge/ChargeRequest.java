package dev.oncepay.charge;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.validation.FieldError;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.payment.PaymentInstrument;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Currency;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A validated {@code POST /payments} body. Money is an integer in minor units with an ISO 4217
 * code; anything else, and any unknown field, is rejected before anything is stored. The
 * instrument's tokens are checked here for shape only; whether the tenant's provider needs or
 * accepts them is its adapter's call.
 */
public record ChargeRequest(long amount, String currency, String reference, String description,
        PaymentInstrument instrument) {
    /** Stripe's ceiling for one charge (8 digits of minor units). */
    public static final long MAX_AMOUNT = 99_999_999L;
    static final int MAX_REFERENCE = 128;
    static final int MAX_DESCRIPTION = 500;
    /** Provider tokens are short ASCII ids ({@code pm_…}, {@code cus_…}); Stripe's are well below this. */
    static final int MAX_TOKEN = 255;

    private static final Set<String> FIELDS = Set.of("amount", "currency", "reference", "description",
            "paymentMethod", "customer");
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** @param body the request body, already checked to be the client's UTF-8 ({@code HttpApiEvent#utf8Body}) */
    public static ChargeRequest parse(byte[] body) {
        JsonNode root = readObject(body);
        List<FieldError> errors = new ArrayList<>();
        for (Iterator<String> names = root.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                errors.add(new FieldError(name, "unknown field"));
            }
        }
        long amount = amount(root.get("amount"), errors);
        String currency = currency(root.get("currency"), errors);
        String reference = text(root.get("reference"), "reference", true, MAX_REFERENCE, errors);
        String description = text(root.get("description"), "description", false, MAX_DESCRIPTION, errors);
        String paymentMethod = token(root.get("paymentMethod"), "paymentMethod", errors);
        String customer = token(root.get("customer"), "customer", errors);
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
        return new ChargeRequest(amount, currency, reference, description,
                new PaymentInstrument(paymentMethod, customer));
    }

    /** Canonical form for the request fingerprint: fixed field order, no insignificant white space. */
    public String canonicalJson() {
        Map<String, Object> canonical = new LinkedHashMap<>();
        canonical.put("amount", amount);
        canonical.put("currency", currency);
        canonical.put("reference", reference);
        canonical.put("description", description);
        // Only when present, so requests without them keep the fingerprints they always had.
        if (instrument.paymentMethod() != null) {
            canonical.put("paymentMethod", instrument.paymentMethod());
        }
        if (instrument.customer() != null) {
            canonical.put("customer", instrument.customer());
        }
        try {
            return STRICT.writeValueAsString(canonical);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
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

    private static long amount(JsonNode node, List<FieldError> errors) {
        if (node == null || node.isNull()) {
            errors.add(new FieldError("amount", "required"));
        } else if (!node.isIntegralNumber()) {
            errors.add(new FieldError("amount", "must be an integer number of minor units"));
        } else if (node.bigIntegerValue().compareTo(BigInteger.ONE) < 0) {
            errors.add(new FieldError("amount", "must be positive"));
        } else if (node.bigIntegerValue().compareTo(BigInteger.valueOf(MAX_AMOUNT)) > 0) {
            errors.add(new FieldError("amount", "must be at most " + MAX_AMOUNT));
        } else {
            return node.longValue();
        }
        return 0;
    }

    private static String currency(JsonNode node, List<FieldError> errors) {
        if (node == null || node.isNull()) {
            errors.add(new FieldError("currency", "required"));
            return null;
        }
        String code = node.isTextual() ? node.textValue() : null;
        if (code == null || !CURRENCY.matcher(code).matches() || !isIso4217(code)) {
            errors.add(new FieldError("currency", "must be an ISO 4217 code in upper case, like EUR"));
            return null;
        }
        return code;
    }

    private static boolean isIso4217(String code) {
        try {
            // Pseudo-currencies (XXX, XTS, XAU, XDR, ...) have no minor unit: not money to charge.
            return Currency.getInstance(code).getDefaultFractionDigits() >= 0;
        } catch (IllegalArgumentException unknown) {
            return false;
        }
    }

    /** An optional provider token: an id that starts with a letter, so a card number can never pass as one. */
    private static String token(JsonNode node, String field, List<FieldError> errors) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual() || node.textValue().isEmpty() || node.textValue().length() > MAX_TOKEN
                || !TOKEN.matcher(node.textValue()).matches()) {
            errors.add(new FieldError(field, "must be a provider token of 1-" + MAX_TOKEN
                    + " letters, digits, '_' or '-' starting with a letter, like pm_card_visa (never card data)"));
            return null;
        }
        return node.textValue();
    }

    private static String text(JsonNode node, String field, boolean required, int max, List<FieldError> errors) {
        if (node == null || node.isNull()) {
            if (required) {
                errors.add(new FieldError(field, "required"));
            }
            return null;
        }
        if (!node.isTextual() || node.textValue().isBlank()) {
            errors.add(new FieldError(field, "must be a non-empty string"));
            return null;
        }
        String value = node.textValue();
        if (value.length() > max) {
            errors.add(new FieldError(field, "must be at most " + max + " characters"));
            return null;
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            errors.add(new FieldError(field, "must not contain control characters"));
            return null;
        }
        // A JSON escape such as "\ud800" decodes to half a character, which no store keeps intact.
        if (value.codePoints().anyMatch(c -> Character.getType(c) == Character.SURROGATE)) {
            errors.add(new FieldError(field, "must be valid Unicode text (no unpaired surrogates)"));
            return null;
        }
        return value;
    }
}
