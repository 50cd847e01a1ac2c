package dev.oncepay.refund;

/**
 * The atomic phases of a refund run (brandur): each ends with one durable write or the provider
 * call, and a run that dies after any of them is resumed by a same-key retry once its lease
 * expires, or settled by the sweep.
 */
public enum RefundPhase {
    /** The key is ours (claimed fresh or taken over). */
    KEY_CLAIMED,
    /** The PENDING refund is durable and listed for the sweep. */
    REFUND_RECORDED,
    /** Its amount is reserved on the payment: it may be sent. */
    AMOUNT_RESERVED,
    /** The provider call returned an outcome, not yet written. */
    PROVIDER_ANSWERED,
    /** The outcome is written (and, for a failure, the reservation released). */
    SETTLED
}
