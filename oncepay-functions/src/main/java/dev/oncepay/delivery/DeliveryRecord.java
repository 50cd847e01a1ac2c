package dev.oncepay.delivery;

import java.time.Instant;
import java.util.Optional;

/**
 * One event's delivery to one endpoint, as event delivery last recorded it. A record exists from
 * the first attempt on; an event queued but never attempted has none.
 *
 * @param objectId the payment or refund the event is about
 * @param paymentId the payment itself, or the refunded one
 * @param eventAt when the event happened
 * @param attempts attempts made, duplicates of an acknowledged delivery included
 * @param lastAnswer what the endpoint answered last: {@code 200}, {@code 500}, {@code timeout},
 *        {@code connection refused}, {@code redirect 302}, ...
 * @param nextAttemptAt when the next attempt is due; empty unless {@link DeliveryStatus#RETRYING}
 * @param deliveredAt the first acknowledged attempt; empty unless {@link DeliveryStatus#DELIVERED}
 */
public record DeliveryRecord(DeliveryKey key, String eventType, String objectId, String paymentId, long sequence,
        Instant eventAt, DeliveryStatus status, int attempts, Instant lastAttemptAt, String lastAnswer,
        Optional<Instant> nextAttemptAt, Optional<Instant> deliveredAt) {

    public String tenant() {
        return key.tenant();
    }

    public String endpoint() {
        return key.endpoint();
    }

    public String eventId() {
        return key.eventId();
    }
}
