package dev.oncepay.queue;

import java.time.Instant;

/**
 * The body of a charge queue's message: which payment to charge, under which key, and who handed
 * it to the queue. The worker may take the key over from {@code epoch} at once, whatever its lease:
 * the run at that epoch sent this message as its last act and sends nothing more. Another epoch's
 * lease must have ended first, as for any takeover.
 *
 * @param keyId the idempotency key's storage id (tenant-scoped, hashed: no client data)
 * @param epoch the lease epoch of the run that handed the charge over
 * @param attempt how many times the charge was put back with a delay (0 for the request's own message)
 * @param queuedAtMs when the request queued it (epoch millis): the queue lag is measured from here
 */
public record ChargeJob(String paymentId, String keyId, long epoch, int attempt, long queuedAtMs) {

    /** The request's own message. */
    public static ChargeJob first(String paymentId, String keyId, long epoch, Instant queuedAt) {
        return new ChargeJob(paymentId, keyId, epoch, 0, queuedAt.toEpochMilli());
    }

    /** The message that puts this charge back, handed over by the run at {@code epoch}. */
    public ChargeJob again(long epoch) {
        return new ChargeJob(paymentId, keyId, epoch, attempt + 1, queuedAtMs);
    }

    public Instant queuedAt() {
        return Instant.ofEpochMilli(queuedAtMs);
    }
}
