package dev.oncepay.admin;

import dev.oncepay.payment.PaymentStatus;

/** The payment is in a state no resolution leaves (only NEEDS_REVIEW and UNKNOWN): 409, nothing written. */
public class ResolutionNotAllowedException extends RuntimeException {
    private final PaymentStatus status;

    ResolutionNotAllowedException(PaymentStatus status) {
        super("the payment is " + status.name().toLowerCase(java.util.Locale.ROOT)
                + "; only a payment in needs_review or unknown can be resolved");
        this.status = status;
    }

    public PaymentStatus status() {
        return status;
    }
}
