package dev.oncepay.webhook;

import java.time.Instant;

/**
 * The journal record of one provider event.
 *
 * @param outcome {@code null} while {@link State#RECEIVED}
 */
public record JournalEntry(String provider, String eventId, String type, String paymentId, State state,
        WebhookOutcome outcome, String detail, Instant receivedAt, Instant expiresAt) {

    public enum State {
        /** Durably journaled; its effect on the payment may or may not have been written yet. */
        RECEIVED,
        /** Applied (or deliberately not) and answered: a later delivery is a duplicate. */
        PROCESSED
    }
}
