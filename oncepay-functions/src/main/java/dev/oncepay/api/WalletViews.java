package dev.oncepay.api;

import dev.oncepay.wallet.WalletOperation;
import dev.oncepay.wallet.WalletPage;
import java.util.LinkedHashMap;
import java.util.Map;

/** The wallet JSON of the HTTP contract, in a fixed field order so equal answers are equal bytes. */
final class WalletViews {
    private WalletViews() {
    }

    /** The answer to an applied credit or debit: the entry and the balance after it. */
    static Map<String, Object> operation(WalletOperation entry) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("walletId", entry.walletId());
        view.put("balance", entry.balance());
        view.put("currency", entry.currency());
        view.put("entry", entry(entry));
        return view;
    }

    static Map<String, Object> page(WalletPage page) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("walletId", page.walletId());
        view.put("balance", page.balance());
        view.put("currency", page.currency());
        view.put("entries", page.entries().stream().map(WalletViews::entry).toList());
        view.put("nextCursor", page.nextCursor());
        return view;
    }

    /** The 402's extensions: the balance (and currency) the debit was refused at. */
    static Map<String, Object> refusal(WalletOperation refused) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("walletId", refused.walletId());
        view.put("balance", refused.balance());
        view.put("currency", refused.currency());
        return view;
    }

    private static Map<String, Object> entry(WalletOperation op) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", op.id());
        view.put("kind", op.kind().apiName());
        view.put("amount", op.amount());
        view.put("currency", op.currency());
        view.put("reference", op.reference());
        view.put("seq", op.seq());
        view.put("balanceAfter", op.balance());
        view.put("createdAt", op.createdAt().toString());
        return view;
    }
}
