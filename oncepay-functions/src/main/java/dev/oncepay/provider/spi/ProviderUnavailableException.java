package dev.oncepay.provider.spi;

import java.time.Duration;

/** The provider cannot be reached and nothing was sent: answer 503 with Retry-After; the key is free again. */
public class ProviderUnavailableException extends RuntimeException {
    private final ProviderRefusal refusal;
    private final Duration retryAfter;

    /**
     * @param refusal what of the fleet's protection refused the call, or {@code null} if the
     *        provider itself failed before anything reached it
     */
    public ProviderUnavailableException(ProviderRefusal refusal, String reason, Duration retryAfter) {
        super(reason);
        this.refusal = refusal;
        this.retryAfter = retryAfter;
    }

    public ProviderRefusal refusal() {
        return refusal;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
