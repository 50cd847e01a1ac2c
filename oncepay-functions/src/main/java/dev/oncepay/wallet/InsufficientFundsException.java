package dev.oncepay.wallet;

/** A debit above the balance was refused (402): nothing changed, and this is the key's recorded answer. */
public class InsufficientFundsException extends RuntimeException {
    private final WalletOperation refused;
    private final boolean replayed;

    public InsufficientFundsException(WalletOperation refused, boolean replayed) {
        super("the wallet's balance is smaller than the debit; nothing changed");
        this.refused = refused;
        this.replayed = replayed;
    }

    public WalletOperation refused() {
        return refused;
    }

    public boolean replayed() {
        return replayed;
    }
}
