package dev.oncepay.sim;

/** A PaymentIntent's {@code status}, as Stripe spells it. */
enum PaymentIntentStatus {
    REQUIRES_PAYMENT_METHOD,
    REQUIRES_CONFIRMATION,
    REQUIRES_ACTION,
    PROCESSING,
    REQUIRES_CAPTURE,
    CANCELED,
    SUCCEEDED;

    String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
