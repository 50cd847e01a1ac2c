package dev.oncepay.wallet;

import java.util.List;

/** A wallet as shown: balance, currency, a page of entries newest first, and the cursor of the next page. */
public record WalletPage(String walletId, long balance, String currency, List<WalletOperation> entries,
        String nextCursor) {
}
