package dev.oncepay.wallet;

/** An applied operation a request ends with, and whether it is a replay of an earlier request. */
public record WalletAnswer(WalletOperation operation, boolean replayed) {
}
