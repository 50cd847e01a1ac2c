package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The simulator's Stripe side, for tests ({@link PspSimulator#stripe()}): where its events go,
 * how they are signed, and the hooks that move a PaymentIntent on as a customer or Stripe would.
 * Ledger, faults and reset are the simulator's own and shared with the generic API.
 */
public final class StripeMode {

    public static final String SIGNATURE_HEADER = "Stripe-Signature";
    public static final String DEFAULT_WEBHOOK_SECRET = "whsec_local_stripe_secret";
    public static final String PROVIDER_ID = "stripe";

    private final ObjectMapper json;
    private final StripeProvider provider;
    private final WebhookSender webhooks;

    StripeMode(ObjectMapper json, StripeProvider provider, WebhookSender webhooks) {
        this.json = json;
        this.provider = provider;
        this.webhooks = webhooks;
    }

    /** Sends Stripe's events (signed with {@code secret}) to {@code url}, used as given (oncepay: {@code .../webhooks/stripe}). */
    public void setWebhookTarget(URI url, String secret) {
        webhooks.target(new WebhookTarget(url, secret, PROVIDER_ID));
    }

    /**
     * Events about PaymentIntents created with the API key {@code apiKey} are signed with
     * {@code secret}, as each Stripe account signs its endpoint's events with its own secret; the
     * others with the target's. Kept until {@link #clearWebhookTarget()}.
     */
    public void setAccountWebhookSecret(String apiKey, String secret) {
        provider.accountSecret(apiKey, secret);
    }

    public void clearWebhookTarget() {
        webhooks.target(null);
        provider.clearAccountSecrets();
    }

    public Optional<WebhookTarget> webhookTarget() {
        return Optional.ofNullable(webhooks.target());
    }

    /** The target's signing secret, or {@link #DEFAULT_WEBHOOK_SECRET} when no target is set. */
    public String webhookSecret() {
        return webhookTarget().map(WebhookTarget::secret).orElse(DEFAULT_WEBHOOK_SECRET);
    }

    /** The full {@code Stripe-Signature} value ({@code t=…,v1=…}) for {@code body}: Stripe's scheme. */
    public String sign(String body, long unixSeconds) {
        return WebhookSignature.header(webhookSecret(), body, unixSeconds);
    }

    /**
     * A {@code Stripe-Signature} value with one {@code v1=} per secret, as Stripe sends while an
     * endpoint's secret is being rolled (old and new both valid): for rotation tests.
     */
    public static String signWithEach(String body, long unixSeconds, String... secrets) {
        StringBuilder header = new StringBuilder("t=").append(unixSeconds);
        for (String secret : secrets) {
            header.append(",v1=").append(WebhookSignature.hmacHex(secret, unixSeconds + "." + body));
        }
        return header.toString();
    }

    /**
     * A signed event of {@code type} about the latest PaymentIntent of {@code reference}, not sent;
     * post it with {@code delivery.toRequest(url, StripeMode.SIGNATURE_HEADER)}.
     */
    public WebhookDelivery webhookFor(String type, String reference) {
        PaymentIntent intent = latest(reference);
        StripeEvent event = StripeEvent.of(type, intent);
        return WebhookDelivery.signed(event.id(), event.toJson(json), secretOf(intent), Instant.now().getEpochSecond());
    }

    /** Emits an event of {@code type} about the latest PaymentIntent of {@code reference} (webhook faults apply). */
    public WebhookDelivery sendWebhook(String type, String reference) {
        if (webhooks.target() == null) {
            throw new IllegalStateException("no Stripe webhook target set");
        }
        PaymentIntent intent = latest(reference);
        StripeEvent event = StripeEvent.of(type, intent);
        String body = event.toJson(json);
        webhooks.publish(event.id(), event.type(), body, provider.signingSecretOf(intent).orElse(null));
        return WebhookDelivery.signed(event.id(), body, secretOf(intent), Instant.now().getEpochSecond());
    }

    public List<WebhookAttempt> webhookAttempts() {
        return webhooks.attempts();
    }

    /** @return true once every queued Stripe delivery succeeded or gave up, false on timeout */
    public boolean awaitWebhooks(Duration timeout) {
        return webhooks.awaitIdle(timeout);
    }

    /** The id ({@code pi_…}) of the latest PaymentIntent created for {@code reference}. */
    public Optional<String> paymentIntentId(String reference) {
        return provider.latest(reference).map(PaymentIntent::id);
    }

    /**
     * The customer completes ({@code approved}) or fails 3-D Secure for a {@code requires_action}
     * PaymentIntent: it succeeds (a charge in the ledger) or fails, and its event is sent.
     */
    public void authenticate(String paymentIntentId, boolean approved) {
        provider.authenticate(paymentIntentId, approved);
    }

    /**
     * From now on ({@code true}) a confirmed payment that would succeed is answered and kept
     * {@code processing} (event {@code payment_intent.processing}, no ledger entry) until
     * {@link #settle}; {@code /_sim/reset} turns this off.
     */
    public void settleLater(boolean value) {
        provider.settleLater(value);
    }

    /** A {@code processing} PaymentIntent succeeds (a charge in the ledger) or fails, with its event. */
    public void settle(String paymentIntentId, boolean succeeded) {
        provider.settle(paymentIntentId, succeeded);
    }

    /**
     * Cancels a PaymentIntent as {@code POST /v1/payment_intents/{id}/cancel} would (not in a
     * succeeded or canceled one: {@link IllegalStateException}); {@code payment_intent.canceled} is sent.
     */
    public void cancel(String paymentIntentId) {
        try {
            provider.cancel(paymentIntentId, null);
        } catch (ApiError refused) {
            throw new IllegalStateException(refused.getMessage());
        }
    }

    /**
     * The next {@code POST /v1/payment_intents/{id}/cancel} is answered with this Stripe error
     * (as {@link #scriptError}); with {@code executes} the cancel runs first.
     */
    public void scriptCancelError(int status, String type, String code, Map<String, String> headers, boolean executes) {
        provider.scriptCancel(new StripeScriptedError(StripeErrors.scripted(status, type, code, headers), executes));
    }

    /**
     * The next {@code POST /v1/payment_intents} is answered with this Stripe error, before any random
     * fault: {@code {"error":{"type":type,"code":code,…}}} with exactly {@code headers} (e.g.
     * {@code Stripe-Should-Retry: false} on a {@code 500}, an HTTP-date {@code Retry-After}). With
     * {@code executes} the create runs first as usual (a charge, stored for the key, which later
     * requests with it replay), as when Stripe fails after executing; otherwise nothing runs.
     */
    public void scriptError(int status, String type, String code, Map<String, String> headers, boolean executes) {
        provider.script(new StripeScriptedError(StripeErrors.scripted(status, type, code, headers), executes));
    }

    private PaymentIntent latest(String reference) {
        return provider.latest(reference)
                .orElseThrow(() -> new IllegalStateException("no PaymentIntent with reference " + reference));
    }

    /** The secret of the account that created {@code intent}, else the target's. */
    private String secretOf(PaymentIntent intent) {
        return provider.signingSecretOf(intent).orElseGet(this::webhookSecret);
    }
}
