package dev.oncepay.refund;

/** The amount asked is more than what is left of the payment (captured less every refund not failed). */
public final class RefundExceedsChargeException extends RefundRefusedException {
    private final long amountRefundable;

    public RefundExceedsChargeException(String paymentId, long asked, long amountRefundable) {
        super(paymentId, "a refund of " + asked + " exceeds the " + amountRefundable + " left to refund of payment "
                + paymentId);
        this.amountRefundable = amountRefundable;
    }

    public long amountRefundable() {
        return amountRefundable;
    }
}
