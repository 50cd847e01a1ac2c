package dev.oncepay.wallet;

/** A credit or debit in another currency than the one the wallet's first credit fixed (400): nothing stored. */
public class CurrencyMismatchException extends RuntimeException {
    private final String walletId;
    private final String walletCurrency;

    public CurrencyMismatchException(String walletId, String walletCurrency) {
        super("the wallet holds " + walletCurrency + "; nothing changed");
        this.walletId = walletId;
        this.walletCurrency = walletCurrency;
    }

    public String walletId() {
        return walletId;
    }

    public String walletCurrency() {
        return walletCurrency;
    }
}
