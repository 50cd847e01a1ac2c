package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Map;

/**
 * A Stripe PaymentIntent as the simulator keeps it. {@code idempotencyKey} is the provider's own
 * bookkeeping and never appears in the JSON.
 *
 * @param paymentMethod null after a failed attempt (Stripe detaches it)
 * @param customer optional {@code cus_…}
 * @param latestCharge the {@code ch_…} of the latest attempt (succeeded or failed), or null
 * @param lastPaymentError set while {@code requires_payment_method} after a failed attempt
 * @param reference {@code metadata[oncepay_payment_id]}: oncepay's payment id, the ledger's reference
 */
record PaymentIntent(
        String id,
        PaymentIntentStatus status,
        long amount,
        String currency,
        String paymentMethod,
        String customer,
        String description,
        Map<String, String> metadata,
        String clientSecret,
        String latestCharge,
        LastPaymentError lastPaymentError,
        String idempotencyKey,
        Instant createdAt) {

    static final String REFERENCE_KEY = "oncepay_payment_id";

    /** Stripe's {@code last_payment_error}: the card error of the failed attempt. */
    record LastPaymentError(String code, String declineCode, String message, String paymentMethod, String charge) {
    }

    PaymentIntent {
        metadata = Map.copyOf(metadata);
    }

    String reference() {
        return metadata.get(REFERENCE_KEY);
    }

    PaymentIntent withStatus(PaymentIntentStatus newStatus, String newLatestCharge) {
        return after(newStatus, paymentMethod, newLatestCharge, lastPaymentError);
    }

    /** The same PaymentIntent after an attempt: new status, card, latest charge and error. */
    PaymentIntent after(PaymentIntentStatus newStatus, String newPaymentMethod, String newLatestCharge,
            LastPaymentError newError) {
        return new PaymentIntent(id, newStatus, amount, currency, newPaymentMethod, customer, description, metadata,
                clientSecret, newLatestCharge, newError, idempotencyKey, createdAt);
    }

    /** The public shape answered by create, retrieve and search, and carried by events. */
    ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("id", id);
        node.put("object", "payment_intent");
        node.put("amount", amount);
        node.put("amount_capturable", 0);
        node.put("amount_received", status == PaymentIntentStatus.SUCCEEDED ? amount : 0);
        node.putNull("canceled_at");
        node.put("capture_method", "automatic");
        node.put("client_secret", clientSecret);
        node.put("confirmation_method", "automatic");
        node.put("created", createdAt.getEpochSecond());
        node.put("currency", currency);
        node.put("customer", customer);
        node.put("description", description);
        if (lastPaymentError == null) {
            node.putNull("last_payment_error");
        } else {
            ObjectNode error = node.putObject("last_payment_error");
            error.put("type", "card_error");
            error.put("code", lastPaymentError.code());
            error.put("decline_code", lastPaymentError.declineCode());
            error.put("message", lastPaymentError.message());
            error.put("charge", lastPaymentError.charge());
            ObjectNode method = error.putObject("payment_method");
            method.put("id", lastPaymentError.paymentMethod());
            method.put("object", "payment_method");
            method.put("type", "card");
        }
        node.put("latest_charge", latestCharge);
        node.put("livemode", false);
        ObjectNode meta = node.putObject("metadata");
        metadata.forEach(meta::put);
        if (status == PaymentIntentStatus.REQUIRES_ACTION) {
            ObjectNode action = node.putObject("next_action");
            action.put("type", "use_stripe_sdk");
            ObjectNode sdk = action.putObject("use_stripe_sdk");
            sdk.put("type", "three_d_secure_redirect");
            sdk.put("stripe_js", "https://hooks.stripe.com/redirect/authenticate/" + id);
        } else {
            node.putNull("next_action");
        }
        node.put("payment_method", paymentMethod);
        node.putArray("payment_method_types").add("card");
        node.put("status", status.wire());
        return node;
    }
}
