package dev.oncepay.order;

import java.time.Duration;

/**
 * The order's payment is live (pending, unknown, awaiting the customer, in review, or failed with
 * its charge still open): its outcome decides the order, so no second payment starts.
 */
public final class OrderInProgressException extends OrderRefusedException {
    private final Duration retryAfter;

    OrderInProgressException(String boundPaymentId, Duration retryAfter) {
        super(boundPaymentId, "this order's payment " + boundPaymentId
                + " is in progress; follow it instead of paying again. Nothing was charged for this request");
        this.retryAfter = retryAfter;
    }

    /** What a retry of the live payment's own key would be told to wait. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
