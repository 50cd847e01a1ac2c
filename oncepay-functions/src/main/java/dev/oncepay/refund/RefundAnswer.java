package dev.oncepay.refund;

import dev.oncepay.payment.Refund;

/** The refund a refund request ends with, and whether it is a replay of an earlier request. */
public record RefundAnswer(Refund refund, boolean replayed) {
}
