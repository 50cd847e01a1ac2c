package dev.oncepay.provider.stripe;

import dev.oncepay.payment.RefundStatus;
import dev.oncepay.provider.spi.ProviderOutcome;

/**
 * The statuses a Stripe Refund may carry, and the one mapping of each to what it means for our
 * refund, shared by the refund answer, the lookup and the refund events: only {@code succeeded}
 * is money returned; only {@code failed} and {@code canceled} prove nothing was returned; a refund
 * Stripe is still working on, or a status this adapter does not know, is not final.
 */
enum StripeRefundStatus {
    SUCCEEDED("succeeded"),
    PENDING("pending"),
    /** Stripe needs the customer's details (some non-card methods) before it can return the money. */
    REQUIRES_ACTION("requires_action"),
    FAILED("failed"),
    CANCELED("canceled"),
    /** Absent, empty, or a word this adapter does not know (matched exactly: no guessing at case). */
    UNRECOGNISED(null);

    private final String wire;

    StripeRefundStatus(String wire) {
        this.wire = wire;
    }

    static StripeRefundStatus fromWire(String status) {
        for (StripeRefundStatus known : values()) {
            if (known.wire != null && known.wire.equals(status)) {
                return known;
            }
        }
        return UNRECOGNISED;
    }

    /** @return {@code SUCCEEDED}, {@code FAILED} or {@code UNKNOWN} */
    ProviderOutcome outcome() {
        return switch (this) {
            case SUCCEEDED -> ProviderOutcome.SUCCEEDED;
            case FAILED, CANCELED -> ProviderOutcome.FAILED;
            case PENDING, REQUIRES_ACTION, UNRECOGNISED -> ProviderOutcome.UNKNOWN;
        };
    }

    /** The same mapping as a refund event's fact: {@code PENDING} wherever the outcome is not final. */
    RefundStatus factOutcome() {
        return switch (outcome()) {
            case SUCCEEDED -> RefundStatus.SUCCEEDED;
            case FAILED -> RefundStatus.FAILED;
            case UNKNOWN, NOT_SENT, NEEDS_REVIEW -> RefundStatus.PENDING;
        };
    }
}
