package dev.oncepay.sim;

import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A validated {@code POST /v1/payment_intents} form. Stricter than Stripe where oncepay must not
 * get it wrong: {@code currency} must already be lower case, {@code metadata[oncepay_payment_id]}
 * and {@code payment_method} are required (the ledger's reference; the card to charge).
 */
record PaymentIntentParams(long amount, String currency, StripeTestPaymentMethod paymentMethod, boolean confirm,
        String customer, String description, Map<String, String> metadata) {

    private static final Set<String> KNOWN = Set.of(
            "amount", "currency", "payment_method", "confirm", "customer", "description", "return_url",
            "off_session", "capture_method", "automatic_payment_methods[enabled]",
            "automatic_payment_methods[allow_redirects]", "payment_method_types[0]");
    private static final Pattern CURRENCY = Pattern.compile("[a-z]{3}");
    private static final Pattern AMOUNT = Pattern.compile("[1-9][0-9]{0,17}");

    /** @throws ApiError 400 in Stripe's shape, naming the first offending parameter */
    static PaymentIntentParams parse(StripeForm form) {
        for (String name : form.fields().keySet()) {
            if (!KNOWN.contains(name) && !(name.startsWith("metadata[") && name.endsWith("]"))) {
                throw StripeErrors.unknownParameter(name);
            }
        }
        String amount = form.get("amount");
        if (amount == null) {
            throw StripeErrors.parameterMissing("amount");
        }
        if (!AMOUNT.matcher(amount).matches()) {
            throw StripeErrors.parameterInvalid("parameter_invalid_integer", "amount",
                    "Invalid integer: " + amount);
        }
        String currency = form.get("currency");
        if (currency == null) {
            throw StripeErrors.parameterMissing("currency");
        }
        if (!CURRENCY.matcher(currency).matches()) {
            throw StripeErrors.parameterInvalid("invalid_currency", "currency",
                    "Invalid currency: " + currency + ". The simulator wants the lower-case ISO code.");
        }
        String method = form.get("payment_method");
        if (method == null || method.isEmpty()) {
            throw StripeErrors.parameterMissing("payment_method");
        }
        StripeTestPaymentMethod paymentMethod = StripeTestPaymentMethod.byId(method)
                .orElseThrow(() -> StripeErrors.resourceMissing(400, "payment_method",
                        "No such PaymentMethod: '" + method + "'"));
        String confirm = form.get("confirm");
        if (confirm != null && !confirm.equals("true") && !confirm.equals("false")) {
            throw StripeErrors.parameterInvalid("parameter_invalid_boolean", "confirm", "Invalid boolean: " + confirm);
        }
        String customer = form.get("customer");
        if (customer != null && !customer.startsWith("cus_")) {
            throw StripeErrors.resourceMissing(400, "customer", "No such customer: '" + customer + "'");
        }
        Map<String, String> metadata = form.metadata();
        String reference = metadata.get(PaymentIntent.REFERENCE_KEY);
        if (reference == null || reference.isEmpty()) {
            throw StripeErrors.parameterMissing("metadata[" + PaymentIntent.REFERENCE_KEY + "]");
        }
        return new PaymentIntentParams(Long.parseLong(amount), currency, paymentMethod, "true".equals(confirm),
                customer, form.get("description"), metadata);
    }
}
