package dev.oncepay.wallet;

import java.time.Instant;

/** What one run asks of a wallet: the operation (its id fixed in the key record) and its request. */
record WalletOperand(String operationId, WalletRef wallet, EntryKind kind, WalletRequest request, Instant at) {
}
