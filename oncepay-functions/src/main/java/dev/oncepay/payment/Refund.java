package dev.oncepay.payment;

import java.time.Instant;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A refund of a payment as oncepay records it: its own item, with its own state machine
 * ({@link RefundStatus}), its amount reserved on the payment from before its provider call.
 *
 * @param reason the merchant's reason, free text; {@code null} if none was given
 * @param metadata the merchant's string pairs, sent to the provider with the refund
 * @param providerRefundId the provider's id, once an answer named one
 * @param failureCode why it failed: the provider's code, or {@link #NOT_SENT} / {@link #NOT_REFUNDED}
 * @param leaseEpoch fencing token: only the refund run holding this epoch may settle a PENDING refund
 * @param providerAccount the payment's provider account: the only one asked about the refund
 */
public record Refund(
        String id,
        String paymentId,
        String tenant,
        RefundStatus status,
        long amount,
        String currency,
        String reason,
        Map<String, String> metadata,
        String providerRefundId,
        String failureCode,
        String statusReason,
        Instant createdAt,
        Instant updatedAt,
        long leaseEpoch,
        Instant leaseExpiresAt,
        int checkAttempts,
        ProviderAccount providerAccount) {

    /** {@code failureCode} of a refund that never reached the provider: no money moved. */
    public static final String NOT_SENT = "not_sent";
    /** {@code failureCode} of a refund the provider proved it never executed. */
    public static final String NOT_REFUNDED = "not_refunded";

    private static final Pattern ID = Pattern.compile("ref_[0-9a-f]{32}");

    public Refund {
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    public static String newId() {
        return "ref_" + java.util.UUID.randomUUID().toString().replace("-", "");
    }

    /** Whether {@code id} could be one of ours; anything else is answered 404 without a read. */
    public static boolean isWellFormedId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** The key the provider sees for this refund: derived from our id, never the client's key. */
    public String providerIdempotencyKey() {
        return "oncepay-" + id;
    }
}
