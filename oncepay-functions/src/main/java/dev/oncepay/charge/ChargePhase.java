package dev.oncepay.charge;

/**
 * The atomic phases of a charge (brandur): each ends with one durable write or the provider
 * call, and a run that dies after any of them is resumed by a retry once its lease expires.
 */
public enum ChargePhase {
    /** The key is ours (claimed fresh or taken over): the first write. */
    KEY_CLAIMED,
    /** The PENDING payment is durable and listed for the sweep: nothing is lost from here on. */
    PAYMENT_RECORDED,
    /** The order is bound to the payment (or the tenant does not guard its orders): it may be sent. */
    ORDER_BOUND,
    /**
     * The charge is on its account's queue (a request with {@code Prefer: respond-async}); the run
     * ends here, and the charge worker's run goes on from {@link #KEY_CLAIMED}.
     */
    QUEUED,
    /** The provider call returned an outcome, not yet written. */
    PROVIDER_ANSWERED,
    /** The outcome is written; the key is done. */
    SETTLED
}
