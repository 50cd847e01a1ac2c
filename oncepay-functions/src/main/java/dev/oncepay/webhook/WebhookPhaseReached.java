package dev.oncepay.webhook;

/**
 * Fired (as a synchronous CDI event) when processing an event completes a phase: a hook for
 * tracing and crash tests.
 *
 * @param paymentWritten at {@link WebhookPhase#PAYMENT_UPDATED}: whether this delivery's
 *        conditional write moved the payment (at most one delivery of an event ever does)
 */
public record WebhookPhaseReached(String provider, String eventId, WebhookPhase phase, boolean paymentWritten) {
}
