package dev.oncepay.wallet;

import dev.oncepay.contract.Table;

import dev.oncepay.idempotency.IdempotencyKey;
import java.util.regex.Pattern;

/**
 * A tenant's wallet. The same walletId under two tenants is two wallets: the item's key hashes
 * both, so neither the merchant's id nor the tenant appears in a key.
 */
public record WalletRef(String tenant, String walletId) {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** Whether {@code walletId} is a well-formed wallet id: 1–64 letters, digits, {@code _} or {@code -}. */
    public static boolean isWellFormedId(String walletId) {
        return walletId != null && ID.matcher(walletId).matches();
    }

    public String storageId() {
        return "wallet#" + Table.sha256Hex(tenant + '\u0000' + walletId);
    }
}
