package dev.oncepay.charge;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.money.MoneyBody;
import dev.oncepay.payment.PaymentInstrument;
import java.util.LinkedHashMap;
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
    static final int MAX_DESCRIPTION = 500;
    /** Provider tokens are short ASCII ids ({@code pm_…}, {@code cus_…}); Stripe's are well below this. */
    static final int MAX_TOKEN = 255;

    private static final Set<String> FIELDS = Set.of("amount", "currency", "reference", "description",
            "paymentMethod", "customer");
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");

    /** @param body the request body, already checked to be the client's UTF-8 ({@code HttpApiEvent#utf8Body}) */
    public static ChargeRequest parse(byte[] body) {
        MoneyBody fields = MoneyBody.read(body, FIELDS);
        long amount = fields.amount();
        String currency = fields.currency();
        String reference = fields.reference();
        String description = fields.text("description", false, MAX_DESCRIPTION);
        String paymentMethod = token(fields, "paymentMethod");
        String customer = token(fields, "customer");
        fields.requireValid();
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
        return MoneyBody.canonicalJson(canonical);
    }

    /** An optional provider token: an id that starts with a letter, so a card number can never pass as one. */
    private static String token(MoneyBody fields, String field) {
        JsonNode node = fields.field(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual() || node.textValue().isEmpty() || node.textValue().length() > MAX_TOKEN
                || !TOKEN.matcher(node.textValue()).matches()) {
            fields.reject(field, "must be a provider token of 1-" + MAX_TOKEN
                    + " letters, digits, '_' or '-' starting with a letter, like pm_card_visa (never card data)");
            return null;
        }
        return node.textValue();
    }
}
