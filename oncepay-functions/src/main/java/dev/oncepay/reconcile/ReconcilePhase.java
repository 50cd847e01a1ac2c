package dev.oncepay.reconcile;

/**
 * Points between the steps of reconciling one payment. Each step is one provider call or one
 * conditional write, and a sweep that dies after any of them leaves a state the next sweep
 * resumes from: nothing in between is remembered outside DynamoDB and the provider.
 */
public enum ReconcilePhase {
    /** The payment was re-read consistently and is due. */
    READ,
    /** The provider's lookup by reference answered; nothing written yet. */
    LOOKED_UP,
    /** The charge was re-sent with the payment's provider idempotency key and answered; nothing written yet. */
    RESENT,
    /** A PENDING payment on its way to NEEDS_REVIEW was moved to UNKNOWN (the state machine's only path). */
    MARKED_UNKNOWN,
    /** The sweep's write for this payment (settlement, deferral or dead-letter) is durable. */
    WRITTEN
}
