package dev.oncepay.delivery;

import java.time.Instant;

/**
 * An endpoint's health as its item says.
 *
 * @param consecutiveFailures failed attempts since the last acknowledged one
 * @param restUntil until when deliveries to it wait without calling it ({@link Instant#EPOCH}: not resting)
 */
public record EndpointState(int consecutiveFailures, Instant restUntil) {
    public static final EndpointState HEALTHY = new EndpointState(0, Instant.EPOCH);

    public boolean restingAt(Instant now) {
        return now.isBefore(restUntil);
    }
}
