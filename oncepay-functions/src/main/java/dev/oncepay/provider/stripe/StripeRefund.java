package dev.oncepay.provider.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.payment.Refund;
import dev.oncepay.provider.spi.FoundRefund;
import dev.oncepay.provider.spi.ProviderOutcome;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The parts of a Stripe Refund ({@code "object":"refund"}) oncepay reads, taken only from fields
 * of the expected JSON type: a field of another type counts as absent.
 *
 * @param statusWord Stripe's {@code status} as sent, for reasons and logs
 * @param reference {@code metadata[oncepay_refund_id]}: our refund id as Stripe echoes it
 * @param failureReason Stripe's {@code failure_reason} (e.g. {@code expired_or_canceled_card}), or {@code null}
 */
record StripeRefund(String id, String statusWord, Long amount, String currency, String paymentIntent,
        String reference, String failureReason) {

    static final String REFERENCE_KEY = "oncepay_refund_id";
    /** Card refunds are {@code re_…}; refunds of some other payment methods are {@code pyr_…}. */
    static final Pattern ID = Pattern.compile("(re|pyr)_[A-Za-z0-9_]{1,250}");

    /** The Refund {@code node} is, or {@code null} when it is no Refund with a well-formed id. */
    static StripeRefund read(JsonNode node) {
        if (node == null || !node.isObject() || !"refund".equals(StripePaymentIntent.text(node, "object"))) {
            return null;
        }
        String id = StripePaymentIntent.text(node, "id");
        if (id == null || !ID.matcher(id).matches()) {
            return null;
        }
        JsonNode amount = node.get("amount");
        return new StripeRefund(id, StripePaymentIntent.text(node, "status"),
                amount != null && amount.isIntegralNumber() && amount.canConvertToLong() ? amount.longValue() : null,
                StripePaymentIntent.text(node, "currency"), StripePaymentIntent.text(node, "payment_intent"),
                StripePaymentIntent.text(node.path("metadata"), REFERENCE_KEY),
                StripePaymentIntent.text(node, "failure_reason"));
    }

    StripeRefundStatus status() {
        return StripeRefundStatus.fromWire(statusWord);
    }

    /** Why it failed, for a {@code FAILED} outcome: Stripe's {@code failure_reason}, else the status word. */
    String failureCode() {
        return failureReason != null ? failureReason : statusWord;
    }

    /**
     * Whether it is the answer about {@code refund}: our amount, our currency where it says one, and
     * our refund id where its metadata carries one (the request's own idempotency key ties it to us).
     */
    boolean about(Refund refund) {
        return (reference == null || reference.equals(refund.id())) && amount != null && amount == refund.amount()
                && (currency == null || currency.equalsIgnoreCase(refund.currency()));
    }

    /** What the refund sweep sees of it. */
    FoundRefund found() {
        ProviderOutcome outcome = status().outcome();
        return new FoundRefund(id, outcome, statusWord, reference, amount,
                currency == null ? null : currency.toUpperCase(Locale.ROOT),
                outcome == ProviderOutcome.FAILED ? failureReason : null);
    }

    @Override
    public String toString() {
        return id + " (" + statusWord + ", " + amount + " " + currency + ", " + REFERENCE_KEY + "=" + reference + ")";
    }
}
