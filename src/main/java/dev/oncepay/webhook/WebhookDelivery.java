package dev.oncepay.webhook;

/** One request to {@code POST /webhooks/{provider}}, free of API Gateway types. */
public record WebhookDelivery(String provider, String signatureHeader, byte[] rawBody) {
}
