package dev.oncepay.wallet;

import java.util.Map;
import java.util.Optional;

/**
 * A wallet item as read (or as a write left it): its balance, entry count, marker version and
 * prune horizon, and the markers of its recent operations by operation id. {@code currency} is
 * {@code null} until a credit fixes it (a debit refused before any credit leaves such an item).
 */
record WalletState(String walletId, String currency, long balance, long seq, long version, long horizon,
        Map<String, Marker> markers) {

    /** An operation as its marker records it, and the wallet version the marker was written at. */
    record Marker(WalletOperation operation, long version) {
    }

    /** The state of a wallet no write has reached. */
    static WalletState absent(String walletId) {
        return new WalletState(walletId, null, 0, 0, 0, 0, Map.of());
    }

    Optional<WalletOperation> marker(String operationId) {
        return Optional.ofNullable(markers.get(operationId)).map(Marker::operation);
    }

    /** A wallet to show: one a credit has reached. */
    boolean credited() {
        return currency != null;
    }
}
