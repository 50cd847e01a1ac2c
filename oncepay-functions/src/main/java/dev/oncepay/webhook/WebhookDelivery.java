package dev.oncepay.webhook;

/**
 * One request to {@code POST /webhooks/{provider}}, free of API Gateway types.
 *
 * @param signatureHeader the value of the provider's signature header
 *        ({@link WebhookUseCase#signatureHeaderOf}), {@code null} if absent
 */
public record WebhookDelivery(String provider, String signatureHeader, byte[] rawBody) {
}
