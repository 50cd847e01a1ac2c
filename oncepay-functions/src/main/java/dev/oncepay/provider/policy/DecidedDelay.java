package dev.oncepay.provider.policy;

import dev.oncepay.provider.spi.RetryableProviderFault;
import io.smallrye.faulttolerance.api.CustomBackoffStrategy;

/**
 * SmallRye sleeps whatever a backoff strategy returns, even past the retry's {@code maxDuration};
 * so the wait is decided where the deadline is known ({@link ProviderCalls}, which retries only what
 * fits) and carried by the fault. This strategy only hands it over.
 */
public class DecidedDelay implements CustomBackoffStrategy {

    @Override
    public void init(long initialDelayInMillis) {
        // the initial delay is the base of the backoff ProviderCalls computes
    }

    @Override
    public long nextDelayInMillis(Throwable cause) {
        return cause instanceof RetryableProviderFault fault ? fault.delay().toMillis() : 0;
    }
}
