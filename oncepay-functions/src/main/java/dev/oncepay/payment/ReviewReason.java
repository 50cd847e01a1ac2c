package dev.oncepay.payment;

import java.util.Arrays;
import java.util.Optional;

/**
 * Why a payment is in NEEDS_REVIEW, as the public API names it ({@code reviewReason}): stored
 * with the move to review by the writer that made it, so a merchant can tell the cases apart.
 */
public enum ReviewReason {
    /** Provider facts disagree with what was recorded (outcome, amount, currency or charge). */
    CONFLICTING_FACTS("conflicting_facts"),
    /** The sweep asked for as long as its cap allows and never got a final answer (dead-lettered). */
    RECONCILE_GAVE_UP("reconcile_gave_up"),
    /** The provider's answer showed that our own request was wrong (e.g. Stripe's {@code idempotency_error}). */
    PROVIDER_REJECTED_REQUEST("provider_rejected_request");

    private final String code;

    ReviewReason(String code) {
        this.code = code;
    }

    /** The code of the HTTP contract and of the stored attribute. */
    public String code() {
        return code;
    }

    /** The reason a stored code names; empty for none, or one a newer version wrote. */
    public static Optional<ReviewReason> ofCode(String code) {
        return Arrays.stream(values()).filter(r -> r.code.equals(code)).findFirst();
    }
}
