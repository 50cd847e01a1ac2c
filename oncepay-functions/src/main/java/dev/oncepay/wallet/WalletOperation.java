package dev.oncepay.wallet;

import java.time.Instant;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * One credit or debit of a wallet, as it ended: applied (an entry: {@code seq} and the balance
 * after it) or refused (a debit above the balance: {@code balance} when it was refused, and
 * {@code currency} the wallet's then, {@code null} before its first credit). Derived from the
 * wallet's marker alone, so whoever writes its item writes the same one.
 */
public record WalletOperation(
        String id,
        String walletId,
        EntryKind kind,
        Outcome outcome,
        long amount,
        String currency,
        String reference,
        long seq,
        long balance,
        Instant createdAt) {
    private static final Pattern ID = Pattern.compile("wop_[0-9a-f]{32}");

    public static String newId() {
        return "wop_" + UUID.randomUUID().toString().replace("-", "");
    }

    static boolean isWellFormedId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    public boolean applied() {
        return outcome == Outcome.APPLIED;
    }
}
