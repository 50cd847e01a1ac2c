package dev.oncepay.order;

/**
 * A new payment for an order that is bound to another payment, refused before any provider call:
 * the order is paid, or its payment is live, or it is live for another amount or currency. Nothing
 * is left under the refused request's key that could charge.
 */
public abstract sealed class OrderRefusedException extends RuntimeException
        permits OrderAlreadyPaidException, OrderInProgressException, OrderMismatchException {
    private final String boundPaymentId;

    OrderRefusedException(String boundPaymentId, String message) {
        super(message);
        this.boundPaymentId = boundPaymentId;
    }

    /** The payment the order is bound to: the one to follow instead of paying again. */
    public String boundPaymentId() {
        return boundPaymentId;
    }
}
