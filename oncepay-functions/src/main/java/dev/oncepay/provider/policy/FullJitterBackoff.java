package dev.oncepay.provider.policy;

import java.time.Duration;

/**
 * Exponential backoff with full jitter: {@code random(0, min(cap, base·2^n))} before retry
 * {@code n} (AWS Builders' Library), which SmallRye's additive jitter is not. Only a proposal:
 * {@link ProviderCalls} retries only when the wait and the next attempt fit the call's deadline. The
 * draw comes from {@link Jitter}, which a SnapStart restore reseeds.
 */
public record FullJitterBackoff(Duration base, Duration cap) {

    public Duration delayBefore(int retry) {
        long baseMillis = Math.max(1, base.toMillis());
        long ceiling = Math.min(cap.toMillis(), baseMillis << Math.min(retry, 20));
        return Duration.ofMillis(Jitter.nextLong(Math.max(0, ceiling) + 1));
    }
}
