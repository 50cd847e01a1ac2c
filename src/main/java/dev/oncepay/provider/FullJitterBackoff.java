package dev.oncepay.provider;

import io.smallrye.faulttolerance.api.CustomBackoffStrategy;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Exponential backoff with full jitter ({@code random(0, min(cap, base·2^n))}, AWS Builders'
 * Library), which SmallRye's additive jitter is not; a provider's {@code Retry-After} wins.
 * SmallRye creates one instance per guarded invocation, so the attempt counter is per call.
 */
public class FullJitterBackoff implements CustomBackoffStrategy {
    private long baseMillis;
    private long capMillis;
    private int retries;

    @Override
    public void init(long initialDelayInMillis) {
        this.baseMillis = Math.max(1, initialDelayInMillis);
        this.capMillis = ConfigProvider.getConfig()
                .getOptionalValue("oncepay.provider.backoff-cap", Duration.class)
                .orElse(Duration.ofSeconds(2)).toMillis();
    }

    @Override
    public long nextDelayInMillis(Throwable cause) {
        int n = retries++;
        if (cause instanceof RetryableProviderFault fault && fault.retryAfter().isPresent()) {
            return fault.retryAfter().get().toMillis();
        }
        long ceiling = Math.min(capMillis, baseMillis << Math.min(n, 20));
        return ThreadLocalRandom.current().nextLong(ceiling + 1);
    }
}
