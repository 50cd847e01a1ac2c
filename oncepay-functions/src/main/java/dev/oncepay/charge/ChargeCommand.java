package dev.oncepay.charge;

import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.RequestFingerprint;

/** A validated charge: who asks, under which key, for what. Free of any HTTP or Lambda type. */
public record ChargeCommand(IdempotencyKey key, RequestFingerprint fingerprint, ChargeRequest request) {
}
