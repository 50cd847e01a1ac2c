package dev.oncepay.order;

import java.util.Locale;

/**
 * A payment for an order whose live payment is for another amount or currency: never a second
 * charge; the merchant decides which one the order is.
 */
public final class OrderMismatchException extends OrderRefusedException {
    /** What differs from the order's live payment. */
    public enum Field {
        AMOUNT, CURRENCY;

        /** As the problem's {@code field} member names it: the request body's field. */
        public String apiName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Field field;

    OrderMismatchException(String boundPaymentId, Field field) {
        super(boundPaymentId, "this order's payment " + boundPaymentId + " is in progress for another "
                + field.apiName() + "; nothing was charged for this request");
        this.field = field;
    }

    public Field field() {
        return field;
    }
}
