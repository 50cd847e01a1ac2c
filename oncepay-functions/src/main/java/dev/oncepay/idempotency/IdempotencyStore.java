package dev.oncepay.idempotency;

import java.time.Instant;
import java.util.Optional;

/**
 * Where idempotency keys live. Each method is one conditional write: the store, not a
 * read-then-write in code, decides between concurrent requests.
 */
public interface IdempotencyStore {

    /** Claims {@code proposed} unless a live (unexpired) record exists; then returns that one. */
    ClaimAttempt claim(KeyRecord proposed, Instant now);

    /**
     * Takes over a record whose lease has expired, if it is still exactly as {@code observed}
     * (same epoch): exactly one of several racing retries wins.
     */
    Optional<ClaimAttempt.KeyClaim> takeOver(KeyRecord observed, String newOwner, Instant now, Instant leaseExpiresAt);

    /**
     * Takes over a record whose run handed its charge to the queue, if it is still exactly as
     * {@code observed} (same epoch), whatever its lease: that run sends nothing after its message.
     * Exactly one of several racing takeovers wins.
     */
    Optional<ClaimAttempt.KeyClaim> takeOverQueued(KeyRecord observed, String newOwner, Instant leaseExpiresAt);

    /** The live (unexpired) record of a key, read consistently; for paths that must not write. */
    Optional<KeyRecord> find(String storageId, Instant now);

    /**
     * Forgets a key we hold (same lease owner and epoch), so the client can try again with it
     * (nothing reached the provider); {@code false} if we no longer hold it.
     */
    boolean release(KeyRecord held);
}
