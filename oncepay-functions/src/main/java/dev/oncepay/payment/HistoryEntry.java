package dev.oncepay.payment;

import java.time.Instant;

/**
 * One move of a payment, written in the same conditional write as the move itself, so the
 * history is never behind or ahead of the status: append-only, in the payment's own item.
 *
 * @param from {@code null} for the payment's creation
 * @param reason why, in words (the provider's answer, the conflict, the operator's reason)
 * @param providerPaymentId the provider's charge the move rests on, if any (evidence)
 */
public record HistoryEntry(Instant at, PaymentStatus from, PaymentStatus to, Actor actor, String reason,
        String providerPaymentId, String declineCode) {
}
