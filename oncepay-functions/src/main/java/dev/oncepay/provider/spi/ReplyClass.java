package dev.oncepay.provider.spi;

import java.time.Duration;

/**
 * How the common layer must treat a provider's reply (each adapter knows its provider's error
 * rules; {@link ProviderCalls} applies them the same way for all).
 */
public sealed interface ReplyClass {

    /** A reply to read: {@link ProviderAdapter#readCharge} or {@link ProviderAdapter#readLookup} decides what it says. */
    record Answer() implements ReplyClass {
    }

    /**
     * Worth another attempt with the same idempotency key, after {@code retryAfter} if the provider
     * asked for one ({@code null}: our backoff), if that fits the call's deadline.
     *
     * @param maybeExecuted whether the request may have been executed (a {@code 5xx}), or provably was not ({@code 429})
     */
    record Retry(String detail, boolean maybeExecuted, Duration retryAfter) implements ReplyClass {
    }

    /**
     * No answer, and asking again will not give one (e.g. a {@code 5xx} the provider says not to
     * retry): UNKNOWN if it may have been executed, NOT_SENT if it provably was not.
     */
    record NoAnswer(String detail, boolean maybeExecuted) implements ReplyClass {
    }

    /** The provider refused our credentials: nothing was executed, and retrying will not help. */
    record CredentialsRefused(String detail) implements ReplyClass {
    }
}
