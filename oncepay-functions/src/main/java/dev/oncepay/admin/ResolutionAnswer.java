package dev.oncepay.admin;

import dev.oncepay.payment.PaymentHistory;

/** A resolved payment with its history; {@code replayed} when a request with the same key had resolved it. */
public record ResolutionAnswer(PaymentHistory resolved, boolean replayed) {
}
