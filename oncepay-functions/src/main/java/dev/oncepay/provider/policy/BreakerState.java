package dev.oncepay.provider.policy;

/** Where a fleet breaker stands; one value per breaker item, shared by every sandbox and function. */
public enum BreakerState {
    /** Calls go through; failures are counted in a window. */
    CLOSED,
    /** Calls are refused until the open period ends. */
    OPEN,
    /** One sandbox fleet-wide holds the probe lease; everyone else is refused until its answer. */
    HALF_OPEN
}
