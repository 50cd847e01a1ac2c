package dev.oncepay.idempotency;

import java.time.Instant;

/**
 * The stored state of one idempotency key: who holds its lease and which payment it made.
 * The key is "done" when that payment has an outcome, so completing a charge is a write to the
 * payment alone (see {@code ChargeUseCase}).
 *
 * @param leaseEpoch fencing token, +1 on every takeover
 * @param expiresAt end of retention; past it the key counts as absent even if TTL has not deleted it
 */
public record KeyRecord(
        String storageId,
        String tenant,
        RequestFingerprint fingerprint,
        String paymentId,
        String leaseOwner,
        long leaseEpoch,
        Instant leaseExpiresAt,
        Instant expiresAt,
        Instant createdAt) {

    public boolean leaseExpiredAt(Instant now) {
        return leaseExpiresAt.isBefore(now);
    }
}
