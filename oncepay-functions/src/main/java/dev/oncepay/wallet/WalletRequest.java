package dev.oncepay.wallet;

import dev.oncepay.charge.ChargeRequest;
import dev.oncepay.validation.FieldError;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.payment.PaymentInstrument;
import java.util.ArrayList;
import java.util.List;

/**
 * A validated credit or debit body: {@code amount}, {@code currency} and {@code reference}, validated
 * exactly as a payment's (the same limits and messages), and nothing else.
 */
public record WalletRequest(long amount, String currency, String reference) {
    /** A body is three short fields; anything this large is not one. */
    public static final int MAX_BODY_BYTES = 4096;

    /** @param body the request body, already checked to be the client's UTF-8 */
    public static WalletRequest parse(byte[] body) {
        if (body.length > MAX_BODY_BYTES) {
            throw new InvalidRequestException("body", "must be at most " + MAX_BODY_BYTES + " bytes");
        }
        ChargeRequest payment = ChargeRequest.parse(body);
        // The fields a payment takes besides these three are unknown here.
        List<FieldError> errors = new ArrayList<>();
        if (payment.description() != null) {
            errors.add(new FieldError("description", "unknown field"));
        }
        if (payment.instrument().paymentMethod() != null) {
            errors.add(new FieldError("paymentMethod", "unknown field"));
        }
        if (payment.instrument().customer() != null) {
            errors.add(new FieldError("customer", "unknown field"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
        return new WalletRequest(payment.amount(), payment.currency(), payment.reference());
    }

    /** Canonical form for the request fingerprint: fixed field order, no insignificant white space. */
    public String canonicalJson() {
        return new ChargeRequest(amount, currency, reference, null, PaymentInstrument.NONE).canonicalJson();
    }
}
