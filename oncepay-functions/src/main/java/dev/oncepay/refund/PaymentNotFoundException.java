package dev.oncepay.refund;

/** No payment of the tenant has the id (another tenant's payment is as absent as a missing one). */
public final class PaymentNotFoundException extends RuntimeException {
    public PaymentNotFoundException(String paymentId) {
        super("no such payment: " + paymentId);
    }
}
