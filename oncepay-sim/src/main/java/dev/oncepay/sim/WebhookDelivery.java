package dev.oncepay.sim;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * One signed webhook request: the raw body exactly as signed and its {@code Payment-Signature}
 * header value. Tests use it to post (possibly tampered) events themselves.
 */
public record WebhookDelivery(String eventId, String body, String signature) {

    public static WebhookDelivery signed(String eventId, String body, String secret, long unixSeconds) {
        return new WebhookDelivery(eventId, body, WebhookSignature.header(secret, body, unixSeconds));
    }

    public HttpRequest toRequest(URI target) {
        return toRequest(target, WebhookSignature.HEADER);
    }

    /** @param signatureHeader {@code Payment-Signature}, or {@code Stripe-Signature} (the same scheme) */
    public HttpRequest toRequest(URI target, String signatureHeader) {
        return HttpRequest.newBuilder(target)
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .header(signatureHeader, signature)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }
}
