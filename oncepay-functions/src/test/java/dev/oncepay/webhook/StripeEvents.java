package dev.oncepay.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.sim.StripeMode;
import dev.oncepay.sim.WebhookDelivery;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * Stripe's side of the webhook tests: PaymentIntents created at the simulator's Stripe API over
 * real HTTP (as the Stripe adapter creates them: {@code metadata[oncepay_payment_id]}, our
 * provider idempotency key), the simulator's Stripe-signed events about them, and their delivery
 * to {@code POST /webhooks/stripe} as API Gateway event JSON.
 */
final class StripeEvents {
    static final String PROVIDER = StripeMode.PROVIDER_ID;
    static final String SUCCEEDED = "payment_intent.succeeded";
    static final String PAYMENT_FAILED = "payment_intent.payment_failed";
    static final String CANCELED = "payment_intent.canceled";
    static final String PROCESSING = "payment_intent.processing";
    static final String REQUIRES_ACTION = "payment_intent.requires_action";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private StripeEvents() {
    }

    private static PspSimulator simulator() {
        return TestEnvironment.simulator();
    }

    /**
     * Confirms a PaymentIntent for our payment {@code paymentId} with a Stripe test payment method;
     * returns its id ({@code pi_…}), also when Stripe declined the card ({@code 402}).
     */
    static String createIntent(String paymentId, long amount, String currency, String paymentMethod) {
        String form = "amount=" + amount + "&currency=" + currency.toLowerCase(java.util.Locale.ROOT)
                + "&payment_method=" + paymentMethod + "&confirm=true&"
                + URLEncoder.encode("metadata[oncepay_payment_id]", StandardCharsets.UTF_8) + "=" + paymentId;
        HttpRequest request = HttpRequest.newBuilder(URI.create(simulator().baseUrl() + "/v1/payment_intents"))
                .timeout(Duration.ofSeconds(5))
                .header("Authorization", "Bearer sk_test_oncepay")
                .header("Idempotency-Key", "oncepay-" + paymentId)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode answer = JSON.readTree(response.body());
            JsonNode intent = switch (response.statusCode()) {
                case 200 -> answer;
                case 402 -> answer.path("error").path("payment_intent");
                default -> throw new IllegalStateException("PaymentIntent not created: " + response.statusCode() + " "
                        + response.body());
            };
            return intent.get("id").asText();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The simulator's signed event of {@code type} about the PaymentIntent of our payment {@code paymentId}. */
    static WebhookDelivery eventAbout(String type, String paymentId) {
        return simulator().stripe().webhookFor(type, paymentId);
    }

    /** {@code body} signed now with one {@code v1} per secret. */
    static String signNow(String body, String... secrets) {
        return StripeMode.signWithEach(body, Instant.now().getEpochSecond(), secrets);
    }

    /** API Gateway's event for {@code POST /webhooks/stripe} with {@code signature} in {@code Stripe-Signature}. */
    static String request(String body, String signature) {
        return WebhookRequests.event(PROVIDER, body, StripeMode.SIGNATURE_HEADER, signature);
    }

    static ApiResponse deliver(WebhookDelivery delivery) {
        return WebhookRequests.call(request(delivery.body(), delivery.signature()));
    }
}
