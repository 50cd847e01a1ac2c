package dev.oncepay.provider.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.CustomerAction;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.ProviderOutcome;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The parts of a Stripe PaymentIntent ({@code "object":"payment_intent"}) oncepay reads, taken
 * only from fields of the expected JSON type: a field of another type counts as absent.
 *
 * @param statusWord Stripe's {@code status} as sent, for reasons and logs
 * @param reference {@code metadata[oncepay_payment_id]}: our payment id as Stripe echoes it
 * @param nextAction {@code next_action}, an object while the customer must act, else {@code null}
 * @param failureCode {@code last_payment_error}'s {@code decline_code}, else its {@code code}, else
 *        its {@code type}; {@code null} when the intent carries no failed attempt
 */
record StripePaymentIntent(String id, String statusWord, Long amount, String currency, String reference,
        String clientSecret, JsonNode nextAction, String failureCode) {

    static final String REFERENCE_KEY = "oncepay_payment_id";
    static final Pattern ID = Pattern.compile("pi_[A-Za-z0-9_]{1,250}");

    /** The PaymentIntent {@code node} is, or {@code null} when it is no PaymentIntent with a well-formed id. */
    static StripePaymentIntent read(JsonNode node) {
        if (node == null || !node.isObject() || !"payment_intent".equals(text(node, "object"))) {
            return null;
        }
        String id = text(node, "id");
        if (id == null || !ID.matcher(id).matches()) {
            return null;
        }
        JsonNode amount = node.get("amount");
        JsonNode nextAction = node.get("next_action");
        JsonNode error = node.get("last_payment_error");
        return new StripePaymentIntent(id, text(node, "status"),
                amount != null && amount.isIntegralNumber() && amount.canConvertToLong() ? amount.longValue() : null,
                text(node, "currency"), text(node.path("metadata"), REFERENCE_KEY), text(node, "client_secret"),
                nextAction != null && nextAction.isObject() ? nextAction : null,
                error != null && error.isObject() ? failureCode(error) : null);
    }

    /** Stripe's most specific word for a failed attempt: {@code decline_code}, else {@code code}, else {@code type}. */
    static String failureCode(JsonNode error) {
        String declineCode = text(error, "decline_code");
        if (declineCode != null) {
            return declineCode;
        }
        String code = text(error, "code");
        return code != null ? code : text(error, "type");
    }

    PaymentIntentStatus status() {
        return PaymentIntentStatus.fromWire(statusWord);
    }

    /** What it means for the payment: the one mapping ({@link PaymentIntentStatus#outcome}). */
    ProviderOutcome outcome() {
        return status().outcome(failureCode != null);
    }

    /** Declined and still confirmable with its client secret: it must be canceled. */
    boolean failedButOpen() {
        return outcome() == ProviderOutcome.FAILED && status().confirmable();
    }

    /** Why it failed, for a {@code FAILED} outcome: the attempt's decline code, or {@code canceled}. */
    String declineCode() {
        return failureCode != null ? failureCode : statusWord;
    }

    /** Whether it is the charge of {@code payment}: our id in its metadata, our amount and currency. */
    boolean about(Payment payment) {
        return payment.id().equals(reference) && amount != null && amount == payment.amount()
                && currency != null && currency.equals(payment.currency().toLowerCase(Locale.ROOT));
    }

    /** What reconcile sees of it. */
    FoundCharge found() {
        ProviderOutcome outcome = outcome();
        return new FoundCharge(id, outcome, statusWord, reference, amount,
                currency == null ? null : currency.toUpperCase(Locale.ROOT),
                outcome == ProviderOutcome.FAILED ? declineCode() : null, customerAction(), failedButOpen());
    }

    /** What the customer must do, while it waits for them and says how; otherwise {@code null}. */
    CustomerAction customerAction() {
        return status() == PaymentIntentStatus.REQUIRES_ACTION && clientSecret != null && nextAction != null
                ? new CustomerAction(clientSecret, nextAction.toString()) : null;
    }

    @Override
    public String toString() {
        // Leaves out the client secret, which lets its holder act on the payment.
        return id + " (" + statusWord + ", " + amount + " " + currency + ", " + REFERENCE_KEY + "=" + reference + ")";
    }

    /** A text field's value; {@code null} when absent, null, empty or not text. */
    static String text(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isTextual() && !value.asText().isEmpty() ? value.asText() : null;
    }
}
