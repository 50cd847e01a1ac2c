package dev.oncepay.refund;

/** The payment has nothing to refund: not succeeded (pending, unknown, failed, in review), or refunded in full. */
public final class PaymentNotRefundableException extends RefundRefusedException {
    public PaymentNotRefundableException(String paymentId, String why) {
        super(paymentId, "payment " + paymentId + " cannot be refunded: " + why);
    }
}
