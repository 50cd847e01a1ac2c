package dev.oncepay.charge;

import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.RequestFingerprint;

/**
 * A validated charge: who asks, under which key, for what, and whether the client prefers its
 * charge queued ({@code Prefer: respond-async}). Free of any HTTP or Lambda type.
 */
public record ChargeCommand(IdempotencyKey key, RequestFingerprint fingerprint, ChargeRequest request,
        boolean respondAsync) {

    /** A request that states no preference. */
    public ChargeCommand(IdempotencyKey key, RequestFingerprint fingerprint, ChargeRequest request) {
        this(key, fingerprint, request, false);
    }
}
