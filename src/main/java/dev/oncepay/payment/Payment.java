package dev.oncepay.payment;

import java.time.Instant;

/**
 * A payment as oncepay records it. Money is an integer in minor units with an ISO 4217 code.
 *
 * @param reference the merchant's order reference
 * @param leaseEpoch fencing token: only the charge run holding this epoch may settle a PENDING payment
 */
public record Payment(
        String id,
        String tenant,
        PaymentStatus status,
        long amount,
        String currency,
        String reference,
        String description,
        String providerPaymentId,
        String declineCode,
        String statusReason,
        Instant createdAt,
        Instant updatedAt,
        long leaseEpoch,
        int checkAttempts) {

    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("pay_[0-9a-f]{32}");

    public static String newId() {
        return "pay_" + java.util.UUID.randomUUID().toString().replace("-", "");
    }

    /** Whether {@code id} could be one of ours; anything else is answered 404 without a lookup. */
    public static boolean isWellFormedId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** The key a PSP sees for this payment's charge: derived from our id, never the client's key. */
    public String providerIdempotencyKey() {
        return "oncepay-" + id;
    }
}
