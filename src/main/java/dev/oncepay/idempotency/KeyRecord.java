package dev.oncepay.idempotency;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

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

    /**
     * Whether the key still counts at {@code now}: inside its retention, or held by a run whose
     * lease lives (a takeover just before the retention ended) — the rule the claim's condition
     * applies in the store ({@code TableItems.claim}).
     */
    public boolean liveAt(Instant now) {
        return !expiresAt.isBefore(now.truncatedTo(ChronoUnit.SECONDS)) || !leaseExpiredAt(now);
    }
}
