package dev.oncepay.provider.spi;

/** The three outcomes of a remote call, plus the case where nothing was sent at all. */
public enum ProviderOutcome {
    /** The provider captured the charge. */
    SUCCEEDED,
    /** The provider said no (a decline or a refused request): no money moved. */
    FAILED,
    /** No answer after the request may have arrived (timeout, reset, 5xx): ask the provider later. */
    UNKNOWN,
    /**
     * The provider's answer shows that our own request was wrong in a way that no retry fixes and
     * no decline describes (Stripe's {@code idempotency_error}: our provider key reused with other
     * parameters, a bug or tampering): nothing is assumed about money, a human decides.
     */
    NEEDS_REVIEW,
    /** Provably never reached the provider (breaker open, connection refused, throttled): safe to release. */
    NOT_SENT
}
