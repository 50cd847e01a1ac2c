package dev.oncepay.payment;

/**
 * What the merchant's front end collected to pay with, as provider tokens (never card data): a
 * payment method ({@code pm_…} at Stripe) and optionally the provider's customer ({@code cus_…}).
 * Either may be absent where the payment's provider does not need it; the provider's adapter
 * says what it needs ({@code ProviderAdapter.check}).
 */
public record PaymentInstrument(String paymentMethod, String customer) {
    public static final PaymentInstrument NONE = new PaymentInstrument(null, null);
}
