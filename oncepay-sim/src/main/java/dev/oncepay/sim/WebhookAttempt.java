package dev.oncepay.sim;

import java.time.Instant;

/**
 * One try at delivering an event, for tests that assert on delivery behaviour.
 *
 * @param attempt 1 for the first try of a delivery, 2.. for its retries
 * @param status the receiver's HTTP status, or 0 when the connection failed
 */
public record WebhookAttempt(String eventId, String type, int attempt, int status, Instant at) {

    public boolean delivered() {
        return status >= 200 && status < 300;
    }
}
