package dev.oncepay.admin;

import java.time.Instant;

/**
 * A resolution to FAILED while the provider's "no charge" is not yet a proof that nothing was
 * charged, and no override: 409, nothing written; it can be resolved from {@link #provenAt()}.
 */
public class NoChargeUnprovenException extends RuntimeException {
    private final Instant provenAt;

    NoChargeUnprovenException(Instant provenAt, String detail) {
        super(detail);
        this.provenAt = provenAt;
    }

    /** From when the provider's "no charge" proves that nothing was charged. */
    public Instant provenAt() {
        return provenAt;
    }
}
