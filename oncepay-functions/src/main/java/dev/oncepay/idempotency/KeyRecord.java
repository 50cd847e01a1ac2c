package dev.oncepay.idempotency;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The stored state of one idempotency key: who holds its lease and which resource it makes — a
 * payment ({@code pay_…}) or a wallet operation ({@code wop_…}), its id fixed at the claim. The key
 * is "done" when that resource has its outcome, so completing a request is a write to the
 * resource alone (see {@code ChargeUseCase}, {@code WalletUseCase}).
 *
 * @param leaseEpoch fencing token, +1 on every takeover
 * @param expiresAt end of retention; past it the key counts as absent even if TTL has not deleted it
 */
public record KeyRecord(
        String storageId,
        String tenant,
        RequestFingerprint fingerprint,
        String resourceId,
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
