package dev.oncepay.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * A Stripe event about a PaymentIntent, in Stripe's envelope: {@code id} "evt_…", {@code object}
 * "event", {@code type}, {@code created}, {@code data.object} = the PaymentIntent, {@code livemode}.
 * Refund and charge events use the same envelope ({@link #envelope}).
 */
record StripeEvent(String id, String type, long created, PaymentIntent intent) {

    static final String SUCCEEDED = "payment_intent.succeeded";
    static final String PAYMENT_FAILED = "payment_intent.payment_failed";
    static final String PROCESSING = "payment_intent.processing";
    static final String REQUIRES_ACTION = "payment_intent.requires_action";
    static final String CANCELED = "payment_intent.canceled";
    /**
     * The API version the envelope claims: that of stripe-java 33.3.0 ({@code ApiVersion.CURRENT}),
     * which deserializes {@code data.object} only when the event's version matches its own.
     */
    static final String API_VERSION = "2026-07-29.dahlia";

    /** The event Stripe emits when a PaymentIntent reaches {@code intent}'s status, or null for none. */
    static StripeEvent forStatus(PaymentIntent intent) {
        String type = switch (intent.status()) {
            case SUCCEEDED -> StripeEvent.SUCCEEDED;
            case PROCESSING -> StripeEvent.PROCESSING;
            case REQUIRES_ACTION -> StripeEvent.REQUIRES_ACTION;
            case CANCELED -> StripeEvent.CANCELED;
            case REQUIRES_PAYMENT_METHOD -> intent.lastPaymentError() != null ? StripeEvent.PAYMENT_FAILED : null;
            default -> null;
        };
        return type == null ? null : new StripeEvent(WebhookEvent.newId(), type, Instant.now().getEpochSecond(), intent);
    }

    /**
     * An event of any type about {@code intent}; for the five PaymentIntent types the object's
     * status follows the type (a test may send an event that contradicts the real outcome).
     */
    static StripeEvent of(String type, PaymentIntent intent) {
        PaymentIntent shown = switch (type) {
            case SUCCEEDED -> intent.withStatus(PaymentIntentStatus.SUCCEEDED, intent.latestCharge());
            case PROCESSING -> intent.withStatus(PaymentIntentStatus.PROCESSING, intent.latestCharge());
            case REQUIRES_ACTION -> intent.withStatus(PaymentIntentStatus.REQUIRES_ACTION, intent.latestCharge());
            case CANCELED -> intent.withStatus(PaymentIntentStatus.CANCELED, intent.latestCharge());
            case PAYMENT_FAILED -> intent.withStatus(PaymentIntentStatus.REQUIRES_PAYMENT_METHOD, intent.latestCharge());
            default -> intent;
        };
        return new StripeEvent(WebhookEvent.newId(), type, Instant.now().getEpochSecond(), shown);
    }

    String toJson(ObjectMapper json) {
        return envelope(json, id, type, created, intent.toJson(json), null, intent.idempotencyKey());
    }

    /**
     * Stripe's event envelope around any object (a PaymentIntent, a refund, a charge).
     *
     * @param previousAttributes the fields an {@code .updated} event changed, with their old values, or null
     * @param idempotencyKey the key of the API request that caused the event, or null for Stripe's own changes
     */
    static String envelope(ObjectMapper json, String id, String type, long created, ObjectNode object,
            ObjectNode previousAttributes, String idempotencyKey) {
        ObjectNode root = json.createObjectNode();
        root.put("id", id);
        root.put("object", "event");
        root.put("api_version", API_VERSION);
        root.put("created", created);
        ObjectNode data = root.putObject("data");
        data.set("object", object);
        if (previousAttributes != null) {
            data.set("previous_attributes", previousAttributes);
        }
        root.put("livemode", false);
        root.put("pending_webhooks", 1);
        ObjectNode request = root.putObject("request");
        request.putNull("id");
        request.put("idempotency_key", idempotencyKey);
        root.put("type", type);
        try {
            return json.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
