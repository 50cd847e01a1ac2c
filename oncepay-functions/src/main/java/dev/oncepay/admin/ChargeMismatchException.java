package dev.oncepay.admin;

import java.util.Locale;

/**
 * The charge a resolution to SUCCEEDED names is not the payment's (another amount, currency or
 * reference, or not listed by the payment's provider account): 409, nothing written, whatever the
 * override says.
 */
public class ChargeMismatchException extends RuntimeException {
    /** The fact of the charge that differs from the payment. */
    public enum Field {
        AMOUNT, CURRENCY, REFERENCE, PROVIDER_ACCOUNT;

        /** As the problem's {@code field} member names it: the payment's JSON field. */
        public String apiName() {
            return this == PROVIDER_ACCOUNT ? "providerAccount" : name().toLowerCase(Locale.ROOT);
        }
    }

    private final Field field;

    ChargeMismatchException(Field field, String detail) {
        super(detail);
        this.field = field;
    }

    public Field field() {
        return field;
    }
}
