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
 * @param canceledAt when it was canceled, or null
 * @param cancellationReason the {@code cancellation_reason} it was canceled with, or null
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
        Instant createdAt,
        Instant canceledAt,
        String cancellationReason) {

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

    /** A new, unconfirmed PaymentIntent. */
    static PaymentIntent created(String id, long amount, String currency, String paymentMethod, String customer,
            String description, Map<String, String> metadata, String clientSecret, String idempotencyKey,
            Instant createdAt) {
        return new PaymentIntent(id, PaymentIntentStatus.REQUIRES_CONFIRMATION, amount, currency, paymentMethod,
                customer, description, metadata, clientSecret, null, null, idempotencyKey, createdAt, null, null);
    }

    /** The same PaymentIntent, canceled at {@code at} (its card error stays, as Stripe keeps it). */
    PaymentIntent canceled(Instant at, String reason) {
        return new PaymentIntent(id, PaymentIntentStatus.CANCELED, amount, currency, paymentMethod, customer,
                description, metadata, clientSecret, latestCharge, lastPaymentError, idempotencyKey, createdAt, at,
                reason);
    }

    PaymentIntent withStatus(PaymentIntentStatus newStatus, String newLatestCharge) {
        return after(newStatus, paymentMethod, newLatestCharge, lastPaymentError);
    }

    /** The same PaymentIntent after an attempt: new status, card, latest charge and error. */
    PaymentIntent after(PaymentIntentStatus newStatus, String newPaymentMethod, String newLatestCharge,
            LastPaymentError newError) {
        return new PaymentIntent(id, newStatus, amount, currency, newPaymentMethod, customer, description, metadata,
                clientSecret, newLatestCharge, newError, idempotencyKey, createdAt, canceledAt, cancellationReason);
    }

    /** The public shape answered by create, retrieve and search, and carried by events. */
    ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("id", id);
        node.put("object", "payment_intent");
        node.put("amount", amount);
        node.put("amount_capturable", 0);
        node.put("amount_received", status == PaymentIntentStatus.SUCCEEDED ? amount : 0);
        if (canceledAt == null) {
            node.putNull("canceled_at");
        } else {
            node.put("canceled_at", canceledAt.getEpochSecond());
        }
        node.put("cancellation_reason", cancellationReason);
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
