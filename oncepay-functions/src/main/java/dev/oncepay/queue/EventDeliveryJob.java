package dev.oncepay.queue;

/**
 * The body of an event-queue message: one event for one endpoint, with the raw event JSON the
 * endpoint receives (identical on every attempt) and where its delivery stands.
 *
 * @param objectId the payment or refund the event is about
 * @param paymentId the payment itself, or the refunded one
 * @param body the event JSON as the endpoint receives it
 * @param attempt attempts made before this message (0: never attempted)
 * @param firstAttemptAtMs when the first attempt was made (epoch ms; 0: never attempted): the horizon counts from here
 * @param dueAtMs when the next attempt is due (epoch ms; 0: now); a wait over SQS's 15 minutes is chained
 * @param redelivery an operator asked for it again: retried until acknowledged, even if an earlier copy was
 */
public record EventDeliveryJob(String tenant, String endpoint, String eventId, String eventType, String objectId,
        String paymentId, long sequence, long eventAtMs, String body, int attempt, long firstAttemptAtMs,
        long dueAtMs, boolean redelivery) {

    /** The relay's message: never attempted, due now. */
    public static EventDeliveryJob first(String tenant, String endpoint, String eventId, String eventType,
            String objectId, String paymentId, long sequence, long eventAtMs, String body) {
        return new EventDeliveryJob(tenant, endpoint, eventId, eventType, objectId, paymentId, sequence, eventAtMs,
                body, 0, 0, 0, false);
    }

    /** This event again, as an operator asked: never attempted as such, due now. */
    public EventDeliveryJob asRedelivery() {
        return new EventDeliveryJob(tenant, endpoint, eventId, eventType, objectId, paymentId, sequence, eventAtMs,
                body, 0, 0, 0, true);
    }

    /** The message after a failed attempt at {@code attemptedAtMs}, due at {@code dueAtMs}. */
    public EventDeliveryJob retry(long attemptedAtMs, long dueAtMs) {
        return new EventDeliveryJob(tenant, endpoint, eventId, eventType, objectId, paymentId, sequence, eventAtMs,
                body, attempt + 1, firstAttemptAtMs == 0 ? attemptedAtMs : firstAttemptAtMs, dueAtMs, redelivery);
    }

    /** The same message, still due at {@code dueAtMs}: a wait longer than one SQS delay, chained. */
    public EventDeliveryJob waiting(long dueAtMs) {
        return new EventDeliveryJob(tenant, endpoint, eventId, eventType, objectId, paymentId, sequence, eventAtMs,
                body, attempt, firstAttemptAtMs, dueAtMs, redelivery);
    }
}
