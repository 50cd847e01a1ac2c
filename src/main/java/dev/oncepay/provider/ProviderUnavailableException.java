package dev.oncepay.provider;

import java.time.Duration;

/** The provider cannot be reached and nothing was sent: answer 503 with Retry-After; the key is free again. */
public class ProviderUnavailableException extends RuntimeException {
    private final Duration retryAfter;

    public ProviderUnavailableException(String reason, Duration retryAfter) {
        super(reason);
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
