package dev.oncepay.sim;

import java.util.Locale;

/** Where a refund stands at the provider; {@link #PENDING} settles later into one of the others. */
public enum RefundStatus {
    SUCCEEDED,
    PENDING,
    FAILED;

    /** Whether the refund's amount counts against what is left of its charge. */
    boolean holdsAmount() {
        return this != FAILED;
    }

    /** The name in the provider's JSON. */
    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
