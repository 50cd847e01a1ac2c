package dev.oncepay.wallet;

import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.RequestFingerprint;

/** A validated credit or debit, with the client's key and the request's fingerprint. */
public record WalletCommand(IdempotencyKey key, RequestFingerprint fingerprint, WalletRef wallet, EntryKind kind,
        WalletRequest request) {
}
