package dev.oncepay.testkit;

/** One way the store fails a single request, as injected by {@link StoreFaultProxy}. */
public enum StoreFault {
    /** {@code 400 ProvisionedThroughputExceededException}; the request never reaches the store. */
    THROTTLE,
    /** {@code 500 InternalServerError}; the request never reaches the store. */
    SERVER_ERROR,
    /**
     * Held for {@link StoreFaults#stallMs()} (longer than the SDK's attempt timeout), then
     * forwarded: the caller has given up, yet the write may still land later.
     */
    STALL,
    /** Forwarded (a write commits), then answered {@code 500}: the caller never learns it committed. */
    LOST_ANSWER,
    /**
     * {@code 400 ConditionalCheckFailedException}; the request never reaches the store. What a
     * conditional write meets when another writer got there first (scripted only, never drawn).
     */
    CONDITION_FAILED,
    /**
     * Forwarded (a write commits), its true answer held until the test lets it go: a slow answer
     * whose window a test controls (scripted only, never drawn).
     */
    HELD_ANSWER
}
