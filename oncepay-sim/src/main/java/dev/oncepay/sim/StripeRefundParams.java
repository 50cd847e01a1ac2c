package dev.oncepay.sim;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A validated {@code POST /v1/refunds} form of the Stripe API. Stricter than Stripe where oncepay
 * must not get it wrong: {@code payment_intent} is required (Stripe also takes {@code charge}).
 *
 * @param amount empty: whatever is left of the PaymentIntent when the refund executes
 * @param reason null when not sent
 */
record StripeRefundParams(String paymentIntent, OptionalLong amount, String reason, Map<String, String> metadata) {

    private static final Set<String> KNOWN = Set.of("payment_intent", "amount", "reason", "expand[0]");
    private static final Set<String> REASONS = Set.of("duplicate", "fraudulent", "requested_by_customer");
    private static final Pattern AMOUNT = Pattern.compile("[1-9][0-9]{0,17}");

    /** @throws ApiError 400 in Stripe's shape, naming the first offending parameter */
    static StripeRefundParams parse(StripeForm form) {
        if (form.get("charge") != null) {
            throw StripeErrors.invalidRequest("charge",
                    "The simulator refunds by payment_intent only; send payment_intent instead of charge.");
        }
        StripeEndpoint.known(form, KNOWN, true);
        String intent = form.get("payment_intent");
        if (intent == null || intent.isEmpty()) {
            throw StripeErrors.parameterMissing("payment_intent");
        }
        String amount = form.get("amount");
        if (amount != null && !AMOUNT.matcher(amount).matches()) {
            throw StripeErrors.parameterInvalid("parameter_invalid_integer", "amount", "Invalid integer: " + amount);
        }
        String reason = form.get("reason");
        if (reason != null && !REASONS.contains(reason)) {
            throw StripeErrors.parameterInvalid("parameter_invalid_string", "reason",
                    "Invalid reason: must be one of duplicate, fraudulent or requested_by_customer");
        }
        return new StripeRefundParams(intent,
                amount == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(amount)), reason,
                form.metadata());
    }
}
