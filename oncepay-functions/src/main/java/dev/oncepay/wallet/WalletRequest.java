package dev.oncepay.wallet;

import dev.oncepay.money.MoneyBody;
import dev.oncepay.validation.InvalidRequestException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A validated credit or debit body: {@code amount}, {@code currency} and {@code reference}, validated
 * exactly as a payment's (the same limits and messages), and nothing else.
 */
public record WalletRequest(long amount, String currency, String reference) {
    /** A body is three short fields; anything this large is not one. */
    public static final int MAX_BODY_BYTES = 4096;

    private static final Set<String> FIELDS = Set.of("amount", "currency", "reference");

    /** @param body the request body, already checked to be the client's UTF-8 */
    public static WalletRequest parse(byte[] body) {
        if (body.length > MAX_BODY_BYTES) {
            throw new InvalidRequestException("body", "must be at most " + MAX_BODY_BYTES + " bytes");
        }
        MoneyBody fields = MoneyBody.read(body, FIELDS);
        long amount = fields.amount();
        String currency = fields.currency();
        String reference = fields.reference();
        fields.requireValid();
        return new WalletRequest(amount, currency, reference);
    }

    /** Canonical form for the request fingerprint: fixed field order, no insignificant white space. */
    public String canonicalJson() {
        Map<String, Object> canonical = new LinkedHashMap<>();
        canonical.put("amount", amount);
        canonical.put("currency", currency);
        canonical.put("reference", reference);
        // A payment's form, description included: the fingerprints of keys already stored stay the same.
        canonical.put("description", null);
        return MoneyBody.canonicalJson(canonical);
    }
}
