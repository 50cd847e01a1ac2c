package dev.oncepay.provider.spi;

/**
 * What one cancel call (with its retries) established.
 *
 * @param detail the provider's words, for reasons and logs
 */
public record CancelResult(CancelOutcome outcome, String detail) {
}
