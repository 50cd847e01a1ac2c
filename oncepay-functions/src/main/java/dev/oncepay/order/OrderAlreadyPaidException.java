package dev.oncepay.order;

/** The order's payment succeeded: a second one is refused, whatever its key. */
public final class OrderAlreadyPaidException extends OrderRefusedException {
    OrderAlreadyPaidException(String boundPaymentId) {
        super(boundPaymentId, "this order is paid (payment " + boundPaymentId
                + "); nothing was charged for this request");
    }
}
