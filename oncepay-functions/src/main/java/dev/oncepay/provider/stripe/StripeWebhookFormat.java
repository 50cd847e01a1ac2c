package dev.oncepay.provider.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.RefundStatus;
import dev.oncepay.provider.webhook.EventBody;
import dev.oncepay.provider.webhook.MalformedEventException;
import dev.oncepay.provider.webhook.ProviderEvent;
import dev.oncepay.config.SigningSecret;
import dev.oncepay.provider.webhook.VerifiedEvent;
import dev.oncepay.provider.webhook.ProviderEvent.ChargeFact;
import dev.oncepay.provider.webhook.ProviderEvent.RefundFact;
import dev.oncepay.provider.webhook.SignatureVerifier;
import dev.oncepay.provider.webhook.WebhookFormat;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Stripe's webhooks: {@code Stripe-Signature} (the shared {@code t=,v1=} HMAC-SHA256 scheme) over
 * Stripe's event envelope {@code {"id":"evt_…","object":"event","type","livemode","data":{"object":{…}}}}.
 *
 * <p>The five PaymentIntent events are read strictly ({@code data.object} a {@code payment_intent}
 * whose status is the one its type reports; its {@code pi_…} id is the charge id, as the Stripe
 * adapter records it):
 * <ul>
 * <li>{@code payment_intent.succeeded} → SUCCEEDED;</li>
 * <li>{@code payment_intent.payment_failed} → FAILED with {@code last_payment_error.decline_code},
 * else its {@code code}; its PaymentIntent ({@code requires_payment_method}) stays confirmable,
 * so the fact requires its cancel;</li>
 * <li>{@code payment_intent.canceled} → FAILED, decline code {@code canceled};</li>
 * <li>{@code payment_intent.processing}, {@code payment_intent.requires_action} → not final.</li>
 * </ul>
 * The three Refund events, {@code refund.created}, {@code refund.updated} and {@code refund.failed}
 * ({@code data.object} a {@code refund}), are facts about the refund named by its
 * {@code metadata.oncepay_refund_id}, their outcome the Refund's {@code status}: {@code succeeded}
 * → SUCCEEDED; {@code failed}, {@code canceled} → FAILED with {@code failure_reason}, else the
 * status; {@code pending}, {@code requires_action} and any other word → PENDING.
 *
 * <p>Other types, {@code charge.refunded} among them, are kept for audit only. An event of the other
 * mode (live vs test), or about a PaymentIntent or Refund without our id in its metadata, is not ours.
 */
@ApplicationScoped
public class StripeWebhookFormat implements WebhookFormat {
    public static final String PROVIDER_ID = "stripe";
    public static final String SUCCEEDED = "payment_intent.succeeded";
    public static final String PAYMENT_FAILED = "payment_intent.payment_failed";
    public static final String CANCELED = "payment_intent.canceled";
    public static final String PROCESSING = "payment_intent.processing";
    public static final String REQUIRES_ACTION = "payment_intent.requires_action";
    public static final String REFUND_CREATED = "refund.created";
    public static final String REFUND_UPDATED = "refund.updated";
    public static final String REFUND_FAILED = "refund.failed";
    private static final Set<String> REFUND_TYPES = Set.of(REFUND_CREATED, REFUND_UPDATED, REFUND_FAILED);
    /** The PaymentIntent metadata key under which the adapter puts our payment id. */
    private static final String PAYMENT_ID_METADATA = StripePaymentIntent.REFERENCE_KEY;
    /** The decline code of a payment whose PaymentIntent was canceled. */
    public static final String CANCELED_DECLINE_CODE = "canceled";
    private static final SignatureVerifier SIGNATURE = new SignatureVerifier("Stripe-Signature");

    /** {@code oncepay.webhook.stripe.*}: what the webhook function needs to know of its Stripe accounts. */
    @ConfigMapping(prefix = "oncepay.webhook.stripe")
    public interface Settings {
        /** Whether this deployment's Stripe accounts are live; else test mode (Stripe's {@code livemode: false}). */
        @WithDefault("false")
        boolean livemode();
    }

    private final boolean livemode;

    @Inject
    public StripeWebhookFormat(Settings settings) {
        this(settings.livemode());
    }

    StripeWebhookFormat(boolean livemode) {
        this.livemode = livemode;
    }

    @Override
    public String providerId() {
        return PROVIDER_ID;
    }

    @Override
    public String signatureHeader() {
        return SIGNATURE.headerName();
    }

    @Override
    public VerifiedEvent read(String signature, byte[] rawBody, List<SigningSecret> secrets, Instant now,
            Duration tolerance) {
        String account = SIGNATURE.verify(signature, rawBody, secrets, now, tolerance);
        return new VerifiedEvent(account, parse(rawBody, livemode));
    }

    /** The event in a verified body, for an endpoint of {@code livemode}. */
    static ProviderEvent parse(byte[] body, boolean livemode) {
        String text = EventBody.text(body);
        JsonNode root = EventBody.object(body);
        String id = EventBody.token(root.get("id"), "id", EventBody.MAX_ID, true);
        if (!id.startsWith("evt_")) {
            throw new MalformedEventException("id", "must be a Stripe event id (evt_…)");
        }
        if (!"event".equals(root.path("object").textValue())) {
            throw new MalformedEventException("object", "must be \"event\"");
        }
        String type = EventBody.token(root.get("type"), "type", EventBody.MAX_TYPE, true);
        String expectedStatus = switch (type) {
            case SUCCEEDED -> "succeeded";
            case PAYMENT_FAILED -> "requires_payment_method";
            case CANCELED -> "canceled";
            case PROCESSING -> "processing";
            case REQUIRES_ACTION -> "requires_action";
            default -> null;
        };
        JsonNode object = root.path("data").path("object");
        if (REFUND_TYPES.contains(type)) {
            return refundEvent(id, type, object, livemode(root, livemode), text);
        }
        if (expectedStatus == null) {
            // Not ours to apply: keep what identifies it, validate nothing else.
            return ProviderEvent.ignoredType(id, type,
                    EventBody.tokenOrNull(object.path("metadata").get(PAYMENT_ID_METADATA), EventBody.MAX_ID), text);
        }
        String otherMode = livemode(root, livemode);
        requireObject(object, "payment_intent", type);
        String intentId = EventBody.token(object.get("id"), "data.object.id", EventBody.MAX_ID, true);
        if (!intentId.startsWith("pi_")) {
            throw new MalformedEventException("data.object.id", "must be a PaymentIntent id (pi_…)");
        }
        long amount = EventBody.amount(object.get("amount"), "data.object.amount");
        String currency = EventBody.currency(object.get("currency"), "data.object.currency");
        if (!expectedStatus.equals(object.path("status").textValue())) {
            throw new MalformedEventException("data.object.status",
                    "must be \"" + expectedStatus + "\" in a " + type + " event");
        }
        String reference = metadataToken(object, PAYMENT_ID_METADATA);

        if (otherMode != null) {
            return ProviderEvent.notOurs(id, type, reference, otherMode, text);
        }
        if (reference == null) {
            return ProviderEvent.notOurs(id, type, null, "PaymentIntent " + intentId + " has no metadata."
                    + PAYMENT_ID_METADATA + ": not created by oncepay", text);
        }
        // The adapter's one mapping of PaymentIntent statuses, shared with charge answers and lookups;
        // a payment_failed event is itself Stripe's word that an attempt failed.
        String declineCode = declineCode(object);
        boolean attemptFailed = PAYMENT_FAILED.equals(type) || hasError(object);
        PaymentIntentStatus status = PaymentIntentStatus.fromWire(expectedStatus);
        return switch (status.outcome(attemptFailed)) {
            case SUCCEEDED -> ProviderEvent.fact(id, type, reference,
                    new ChargeFact(PaymentStatus.SUCCEEDED, intentId, amount, currency, null), text);
            // A declined PaymentIntent the shopper can still confirm must be canceled, as after a charge.
            case FAILED -> ProviderEvent.fact(id, type, reference, new ChargeFact(PaymentStatus.FAILED, intentId,
                    amount, currency, CANCELED.equals(type) ? CANCELED_DECLINE_CODE : declineCode,
                    status.confirmable()), text);
            case UNKNOWN, NOT_SENT, NEEDS_REVIEW -> ProviderEvent.notFinal(id, type, reference,
                    "PaymentIntent " + intentId + " is " + expectedStatus, text);
        };
    }

    /**
     * A {@code refund.*} event: a fact about the Refund it carries, whose status alone says the
     * outcome (the adapter's one mapping); a {@code refund.failed} must show it failed or canceled.
     */
    private static ProviderEvent refundEvent(String id, String type, JsonNode object, String otherMode, String text) {
        requireObject(object, "refund", type);
        String refundId = EventBody.token(object.get("id"), "data.object.id", EventBody.MAX_ID, true);
        if (!StripeRefund.ID.matcher(refundId).matches()) {
            throw new MalformedEventException("data.object.id", "must be a Refund id (re_… or pyr_…)");
        }
        long amount = EventBody.amount(object.get("amount"), "data.object.amount");
        String currency = EventBody.currency(object.get("currency"), "data.object.currency");
        String statusWord = EventBody.token(object.get("status"), "data.object.status", EventBody.MAX_ID, false);
        StripeRefundStatus status = StripeRefundStatus.fromWire(statusWord);
        if (REFUND_FAILED.equals(type) && status.factOutcome() != RefundStatus.FAILED) {
            throw new MalformedEventException("data.object.status", "must be \"failed\" or \"canceled\" in a " + type + " event");
        }
        String failureReason = EventBody.token(object.get("failure_reason"), "data.object.failure_reason",
                EventBody.MAX_ID, false);
        String reference = metadataToken(object, StripeRefund.REFERENCE_KEY);
        if (otherMode != null) {
            return ProviderEvent.notOurs(id, type, reference, otherMode, text);
        }
        if (reference == null) {
            return ProviderEvent.notOurs(id, type, null, "Refund " + refundId + " has no metadata."
                    + StripeRefund.REFERENCE_KEY + ": not created by oncepay", text);
        }
        RefundStatus outcome = status.factOutcome();
        return ProviderEvent.refundFact(id, type, reference, new RefundFact(outcome, refundId, amount, currency,
                outcome == RefundStatus.FAILED ? (failureReason != null ? failureReason : statusWord) : null), text);
    }

    /**
     * The event's {@code livemode}, required: {@code null} when it is the endpoint's mode, else why
     * the event is not ours.
     */
    private static String livemode(JsonNode root, boolean livemode) {
        JsonNode mode = root.get("livemode");
        if (mode == null || !mode.isBoolean()) {
            throw new MalformedEventException("livemode", "required boolean");
        }
        return mode.booleanValue() == livemode ? null : "a " + (mode.booleanValue() ? "live" : "test")
                + "-mode event at a " + (livemode ? "live" : "test") + "-mode endpoint";
    }

    private static void requireObject(JsonNode object, String kind, String type) {
        if (!object.isObject()) {
            throw new MalformedEventException("data.object", "required object");
        }
        if (!kind.equals(object.path("object").textValue())) {
            throw new MalformedEventException("data.object.object", "must be \"" + kind + "\" in a " + type + " event");
        }
    }

    /** {@code data.object.metadata.<key>}, a token if present; {@code null} without it or without metadata. */
    private static String metadataToken(JsonNode object, String key) {
        JsonNode metadata = object.get("metadata");
        if (metadata != null && !metadata.isNull() && !metadata.isObject()) {
            throw new MalformedEventException("data.object.metadata", "must be an object");
        }
        return metadata == null ? null : EventBody.token(metadata.get(key), "data.object.metadata." + key,
                EventBody.MAX_ID, false);
    }

    private static boolean hasError(JsonNode intent) {
        JsonNode error = intent.get("last_payment_error");
        return error != null && !error.isNull();
    }

    /** {@code last_payment_error.decline_code} (card declines), else its {@code code}; absent if Stripe sent neither. */
    private static String declineCode(JsonNode intent) {
        JsonNode error = intent.get("last_payment_error");
        if (error == null || error.isNull()) {
            return null;
        }
        if (!error.isObject()) {
            throw new MalformedEventException("data.object.last_payment_error", "must be an object");
        }
        String declineCode = EventBody.token(error.get("decline_code"), "data.object.last_payment_error.decline_code",
                EventBody.MAX_ID, false);
        return declineCode != null ? declineCode
                : EventBody.token(error.get("code"), "data.object.last_payment_error.code", EventBody.MAX_ID, false);
    }
}
