package dev.oncepay.webhook;

/**
 * The answer to a delivery (always {@code 200} to the provider).
 *
 * @param duplicate the event had been processed before; {@code outcome} is the stored one
 */
public record WebhookReceipt(String eventId, String type, WebhookOutcome outcome, boolean duplicate) {
}
