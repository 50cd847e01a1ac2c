package dev.oncepay.wallet;

/**
 * The entries index has not caught up with entries the wallet item no longer carries (a GSI is
 * eventually consistent): rather than a page with a hole, a retryable 503.
 */
public class EntriesNotListedException extends RuntimeException {
    public EntriesNotListedException() {
        super("the wallet's entries are not all listed yet; retry shortly");
    }
}
