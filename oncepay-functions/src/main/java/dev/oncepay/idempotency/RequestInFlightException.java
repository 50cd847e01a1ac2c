package dev.oncepay.idempotency;

import java.time.Duration;

/** The same key is being processed right now (its lease is live): answer 409, retry later. */
public class RequestInFlightException extends RuntimeException {
    private final Duration retryAfter;

    public RequestInFlightException(Duration retryAfter) {
        super("a request with this Idempotency-Key is still being processed");
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
