package dev.oncepay.provider.psp;

import dev.oncepay.provider.spi.ProviderOutcome;

/**
 * The statuses a PSP charge may carry on the wire, and the one mapping of each to what it means
 * for the payment (design rule 11): only {@code succeeded} is a capture and only {@code declined}
 * or {@code failed} a refusal; everything else, including a status this adapter does not know or
 * no status at all, is not final. Shared by the charge answer and the reconcile lookup.
 */
public enum PspChargeStatus {
    SUCCEEDED("succeeded"),
    DECLINED("declined"),
    FAILED("failed"),
    PROCESSING("processing"),
    PENDING("pending"),
    REQUIRES_ACTION("requires_action"),
    /** Absent, empty, or a word this adapter does not know (matched exactly: no guessing at case). */
    UNRECOGNISED(null);

    private final String wire;

    PspChargeStatus(String wire) {
        this.wire = wire;
    }

    public static PspChargeStatus fromWire(String status) {
        for (PspChargeStatus known : values()) {
            if (known.wire != null && known.wire.equals(status)) {
                return known;
            }
        }
        return UNRECOGNISED;
    }

    /** {@code SUCCEEDED}, {@code FAILED} or {@code UNKNOWN}; never {@code NOT_SENT}: a charge with a status was sent. */
    public ProviderOutcome outcome() {
        return switch (this) {
            case SUCCEEDED -> ProviderOutcome.SUCCEEDED;
            case DECLINED, FAILED -> ProviderOutcome.FAILED;
            case PROCESSING, PENDING, REQUIRES_ACTION, UNRECOGNISED -> ProviderOutcome.UNKNOWN;
        };
    }
}
