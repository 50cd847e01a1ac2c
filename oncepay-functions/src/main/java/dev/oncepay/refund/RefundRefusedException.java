package dev.oncepay.refund;

/**
 * A refund refused before any provider call, with nothing stored under its key: the payment
 * cannot give back what was asked. One subclass per reason, each its own problem type.
 */
public abstract sealed class RefundRefusedException extends RuntimeException
        permits RefundExceedsChargeException, PaymentNotRefundableException {
    private final String paymentId;

    RefundRefusedException(String paymentId, String message) {
        super(message);
        this.paymentId = paymentId;
    }

    public String paymentId() {
        return paymentId;
    }
}
