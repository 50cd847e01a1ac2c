package dev.oncepay.provider.spi;

/**
 * A fault that would be retried, but the wait before the next attempt (the provider's
 * {@code Retry-After} or our backoff) plus that attempt does not fit what is left of the call's
 * deadline: the retries end here (design rule 12), NOT_SENT only if provably nothing was sent.
 */
public class OutOfTimeProviderFault extends ProviderFault {
    public OutOfTimeProviderFault(String detail, boolean maybeExecuted, Throwable cause) {
        super(detail, maybeExecuted, cause);
    }
}
