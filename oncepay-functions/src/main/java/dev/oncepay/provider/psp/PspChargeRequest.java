package dev.oncepay.provider.psp;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The body of {@code POST /v1/charges}. {@code reference} is oncepay's payment id (so lookups and
 * webhooks map back to it); the merchant's order reference travels in {@code description}. The
 * instrument's tokens are sent when the payment has them (absent fields are left out, not null).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PspChargeRequest(long amount, String currency, String reference, String description,
        String paymentMethod, String customer) {
}
