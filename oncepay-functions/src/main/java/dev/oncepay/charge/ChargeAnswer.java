package dev.oncepay.charge;

import dev.oncepay.payment.Payment;

/** The payment a charge request ends with, and whether it is a replay of an earlier request. */
public record ChargeAnswer(Payment payment, boolean replayed) {
}
