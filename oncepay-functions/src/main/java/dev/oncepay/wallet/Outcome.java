package dev.oncepay.wallet;

import java.util.Locale;

/** How an operation ended: applied (an entry of the wallet) or refused (a debit above the balance). */
public enum Outcome {
    APPLIED,
    REFUSED;

    String storedName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Outcome ofStoredName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
