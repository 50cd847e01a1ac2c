package dev.oncepay.provider.spi;

import java.time.Duration;

/**
 * A fault worth another attempt with the same provider idempotency key (connection refused,
 * {@code 408}, {@code 409}, {@code 429} or {@code 5xx}), whose wait before that attempt — the
 * provider's {@code Retry-After} or our backoff — was checked to fit the call's deadline.
 */
public class RetryableProviderFault extends ProviderFault {
    private final Duration delay;

    public RetryableProviderFault(String detail, boolean maybeExecuted, Duration delay, Throwable cause) {
        super(detail, maybeExecuted, cause);
        this.delay = delay;
    }

    /** How long to wait before the next attempt. */
    public Duration delay() {
        return delay;
    }
}
