package dev.oncepay.wallet;

import java.util.Locale;

/** What an operation does to a wallet's balance. */
public enum EntryKind {
    CREDIT,
    DEBIT;

    /** The name in the API and in the store: {@code credit}, {@code debit}. */
    public String apiName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static EntryKind ofApiName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
