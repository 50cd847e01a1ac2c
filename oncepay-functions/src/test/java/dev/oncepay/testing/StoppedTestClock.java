package dev.oncepay.testing;

import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;
import java.time.Instant;

/**
 * The application's clock in tests whose profile enables it: stopped, so time passes only as the
 * test advances it, and a cache period as short as production's expires only when the test says.
 */
@Alternative
@Singleton
public class StoppedTestClock extends TestClock {
    public StoppedTestClock() {
        super(Instant.now());
    }
}
