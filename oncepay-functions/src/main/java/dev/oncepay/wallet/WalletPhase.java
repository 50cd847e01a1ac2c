package dev.oncepay.wallet;

/**
 * The atomic phases of a wallet operation: each ends with one durable write, and a run that dies
 * after any of them is resumed by a retry once its lease expires (see docs/wallets.md).
 */
public enum WalletPhase {
    /** The key is ours (claimed fresh or taken over), the operation id fixed in it. */
    KEY_CLAIMED,
    /** The wallet item carries the operation's marker: applied (balance and seq moved) or refused. */
    MARKED,
    /** The operation's own item is written: the key is done. */
    RECORDED
}
