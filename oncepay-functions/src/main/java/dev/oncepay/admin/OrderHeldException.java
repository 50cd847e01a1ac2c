package dev.oncepay.admin;

import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;

/**
 * Resolving the payment as succeeded would give its order a second success beside another payment
 * that holds the order (paid, or live): 409, nothing written, unless the operator overrides with a
 * reason.
 */
public class OrderHeldException extends RuntimeException {
    private final String holderId;
    private final boolean paid;

    OrderHeldException(Payment holder) {
        super("the payment's order is held by payment " + holder.id() + " ("
                + holder.status().name().toLowerCase(java.util.Locale.ROOT) + "): resolving this one as succeeded"
                + " could give the order two successful charges; nothing was written (an override needs"
                + " \"override\": true and a reason)");
        this.holderId = holder.id();
        this.paid = holder.status() == PaymentStatus.SUCCEEDED;
    }

    /** The payment that holds the order. */
    public String holderId() {
        return holderId;
    }

    /** Whether the holder succeeded (the order is paid) rather than being live. */
    public boolean paid() {
        return paid;
    }
}
