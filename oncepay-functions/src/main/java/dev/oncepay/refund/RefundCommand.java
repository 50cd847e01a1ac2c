package dev.oncepay.refund;

import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.RequestFingerprint;

/** A validated refund: who asks, under which key, of which payment, for what. Free of any HTTP or Lambda type. */
public record RefundCommand(IdempotencyKey key, String paymentId, RequestFingerprint fingerprint,
        RefundRequest request) {
}
