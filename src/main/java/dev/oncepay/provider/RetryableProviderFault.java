package dev.oncepay.provider;

import java.time.Duration;
import java.util.Optional;

/**
 * A fault worth another attempt with the same provider idempotency key: connection refused,
 * {@code 408}, {@code 429} (with the provider's {@code Retry-After}) or {@code 5xx}.
 */
public class RetryableProviderFault extends ProviderFault {
    private final Duration retryAfter;

    public RetryableProviderFault(String detail, boolean maybeExecuted, Duration retryAfter, Throwable cause) {
        super(detail, maybeExecuted, cause);
        this.retryAfter = retryAfter;
    }

    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
