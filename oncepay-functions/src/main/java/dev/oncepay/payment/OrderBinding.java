package dev.oncepay.payment;

import java.time.Instant;

/**
 * The payment an order is bound to: of all the payments made for one (tenant, order reference),
 * the one that may charge it. Another may take its place only once it has definitely failed.
 *
 * @param orderId the order item's key ({@code order#<tenant>#<sha256(reference)>}): no reference in clear
 */
public record OrderBinding(String orderId, String tenant, String paymentId, long amount, String currency,
        Instant boundAt) {
}
