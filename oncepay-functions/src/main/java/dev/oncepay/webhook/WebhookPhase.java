package dev.oncepay.webhook;

/**
 * The atomic phases of processing one event; each ends with one durable single-item write. A
 * process that dies after any of them leaves state that the provider's redelivery completes.
 */
public enum WebhookPhase {
    /** The event is journaled {@code RECEIVED} (by this delivery or an earlier one that did not finish). */
    JOURNALED,
    /** The event's effect on the payment is written (or there was none to write); the journal is not yet completed. */
    PAYMENT_UPDATED,
    /** The journal says {@code PROCESSED}: later deliveries are duplicates. */
    PROCESSED
}
