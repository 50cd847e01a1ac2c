package dev.oncepay.provider.stripe;

import dev.oncepay.provider.spi.CancelOutcome;
import dev.oncepay.provider.spi.ProviderOutcome;

/**
 * The statuses a Stripe PaymentIntent may carry, and the one mapping of each to what it means for
 * the payment (design rule 11), shared by the charge answer and the lookup: only {@code succeeded}
 * is a capture; only {@code canceled}, or {@code requires_payment_method} after a failed attempt
 * (a {@code last_payment_error}), is a refusal; everything else, including a status this adapter
 * does not know, is not final.
 */
enum PaymentIntentStatus {
    SUCCEEDED("succeeded"),
    PROCESSING("processing"),
    REQUIRES_ACTION("requires_action"),
    REQUIRES_CAPTURE("requires_capture"),
    REQUIRES_CONFIRMATION("requires_confirmation"),
    REQUIRES_PAYMENT_METHOD("requires_payment_method"),
    CANCELED("canceled"),
    /** Absent, empty, or a word this adapter does not know (matched exactly: no guessing at case). */
    UNRECOGNISED(null);

    private final String wire;

    PaymentIntentStatus(String wire) {
        this.wire = wire;
    }

    static PaymentIntentStatus fromWire(String status) {
        for (PaymentIntentStatus known : values()) {
            if (known.wire != null && known.wire.equals(status)) {
                return known;
            }
        }
        return UNRECOGNISED;
    }

    /**
     * @param attemptFailed whether the PaymentIntent carries a {@code last_payment_error}: only then
     *        is {@code requires_payment_method} a decline rather than an intent never attempted
     * @return {@code SUCCEEDED}, {@code FAILED} or {@code UNKNOWN}
     */
    ProviderOutcome outcome(boolean attemptFailed) {
        return switch (this) {
            case SUCCEEDED -> ProviderOutcome.SUCCEEDED;
            case CANCELED -> ProviderOutcome.FAILED;
            case REQUIRES_PAYMENT_METHOD -> attemptFailed ? ProviderOutcome.FAILED : ProviderOutcome.UNKNOWN;
            case PROCESSING, REQUIRES_ACTION, REQUIRES_CAPTURE, REQUIRES_CONFIRMATION, UNRECOGNISED ->
                ProviderOutcome.UNKNOWN;
        };
    }

    /**
     * Whether a PaymentIntent in this status can still be confirmed, and so paid, by whoever holds
     * its client secret: a declined one ({@code requires_payment_method}) stays so until canceled.
     */
    boolean confirmable() {
        return switch (this) {
            case REQUIRES_PAYMENT_METHOD, REQUIRES_CONFIRMATION, REQUIRES_ACTION -> true;
            case SUCCEEDED, PROCESSING, REQUIRES_CAPTURE, CANCELED, UNRECOGNISED -> false;
        };
    }

    /**
     * What a PaymentIntent in this status, as a cancel's answer (or its
     * {@code payment_intent_unexpected_state} error) shows it, means for the cancel.
     */
    CancelOutcome cancelOutcome() {
        return switch (this) {
            case CANCELED -> CancelOutcome.CANCELED;
            case SUCCEEDED -> CancelOutcome.LOST_TO_SUCCESS;
            case PROCESSING, REQUIRES_ACTION, REQUIRES_CAPTURE, REQUIRES_CONFIRMATION, REQUIRES_PAYMENT_METHOD,
                    UNRECOGNISED -> CancelOutcome.NOT_CANCELED;
        };
    }
}
