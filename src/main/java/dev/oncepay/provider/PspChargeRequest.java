package dev.oncepay.provider;

/**
 * The body of {@code POST /v1/charges}. {@code reference} is oncepay's payment id (so lookups and
 * webhooks map back to it); the merchant's order reference travels in {@code description}.
 */
public record PspChargeRequest(long amount, String currency, String reference, String description) {
}
