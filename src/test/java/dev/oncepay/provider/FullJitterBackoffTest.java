package dev.oncepay.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

class FullJitterBackoffTest {

    @Test
    void delaysStayWithinTheExponentialCeilingAndTheCap() {
        long base = 100;
        long cap = ConfigProvider.getConfig().getValue("oncepay.provider.backoff-cap", Duration.class).toMillis();
        long maxSeen = 0;
        for (int run = 0; run < 500; run++) {
            FullJitterBackoff backoff = new FullJitterBackoff();
            backoff.init(base);
            for (int n = 0; n < 8; n++) {
                long delay = backoff.nextDelayInMillis(new RuntimeException());
                long ceiling = Math.min(cap, base << n);
                assertTrue(delay >= 0 && delay <= ceiling, "retry " + n + ": " + delay + " > " + ceiling);
                maxSeen = Math.max(maxSeen, delay);
            }
        }
        assertTrue(maxSeen > cap / 2, "full jitter spreads up to the cap, saw at most " + maxSeen);
    }

    @Test
    void theProvidersRetryAfterWins() {
        FullJitterBackoff backoff = new FullJitterBackoff();
        backoff.init(100);
        RetryableProviderFault throttled = new RetryableProviderFault("429", false, Duration.ofSeconds(1), null);
        assertEquals(1000, backoff.nextDelayInMillis(throttled));
    }
}
