package dev.oncepay.charge;

import dev.oncepay.payment.Payment;

/**
 * The payment a charge request ends with, whether it is a replay of an earlier request, and whether
 * its charge is on its queue (answered 202 with {@code Preference-Applied: respond-async}).
 */
public record ChargeAnswer(Payment payment, boolean replayed, boolean queued) {

    /** An answer of a charge run in its request. */
    public ChargeAnswer(Payment payment, boolean replayed) {
        this(payment, replayed, false);
    }
}
