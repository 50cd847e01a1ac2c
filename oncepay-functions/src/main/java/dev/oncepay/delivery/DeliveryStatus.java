package dev.oncepay.delivery;

/** Where one event's delivery to one endpoint stands, as its record says. */
public enum DeliveryStatus {
    /** The endpoint answered {@code 2xx} at least once: final, whatever later attempts answer. */
    DELIVERED,
    /** The last attempt failed; another is due at the record's {@code nextAttemptAt}. */
    RETRYING,
    /** Every attempt failed until the delivery horizon: no more attempts. */
    DEAD
}
