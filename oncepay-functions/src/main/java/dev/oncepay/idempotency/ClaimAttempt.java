package dev.oncepay.idempotency;

/** What a claim of a key found: it was free and is now ours, or someone holds it already. */
public sealed interface ClaimAttempt {

    /** The key is ours: we hold its lease at {@code record().leaseEpoch()}. */
    record KeyClaim(KeyRecord record, boolean takenOver) implements ClaimAttempt {
    }

    /** The key was already claimed (and is not expired); {@code record} is what is stored. */
    record ExistingKey(KeyRecord record) implements ClaimAttempt {
    }
}
