package dev.oncepay.provider.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.provider.spi.RetryableProviderFault;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FullJitterBackoffTest {

    @Test
    void delaysStayWithinTheExponentialCeilingAndTheCap() {
        long base = 100;
        long cap = 2000;
        FullJitterBackoff backoff = new FullJitterBackoff(Duration.ofMillis(base), Duration.ofMillis(cap));
        long maxSeen = 0;
        for (int run = 0; run < 500; run++) {
            for (int n = 0; n < 8; n++) {
                long delay = backoff.delayBefore(n).toMillis();
                long ceiling = Math.min(cap, base << n);
                assertTrue(delay >= 0 && delay <= ceiling, "retry " + n + ": " + delay + " > " + ceiling);
                maxSeen = Math.max(maxSeen, delay);
            }
        }
        assertTrue(maxSeen > cap / 2, "full jitter spreads up to the cap, saw at most " + maxSeen);
    }

    @Test
    void smallRyeWaitsExactlyTheDelayDecidedWithTheFault() {
        DecidedDelay strategy = new DecidedDelay();
        strategy.init(100);
        assertEquals(1500, strategy.nextDelayInMillis(new RetryableProviderFault("429", false, Duration.ofMillis(1500), null)));
        assertEquals(0, strategy.nextDelayInMillis(new IllegalStateException("not ours")));
    }
}
