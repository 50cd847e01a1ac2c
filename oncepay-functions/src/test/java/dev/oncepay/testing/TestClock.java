package dev.oncepay.testing;

import dev.oncepay.testkit.SettableClock;
import io.quarkus.test.Mock;
import jakarta.inject.Singleton;
import java.time.Instant;

/** The application's clock in tests: real time plus an offset a test can move forward. */
@Mock
@Singleton
public class TestClock extends SettableClock {
    public TestClock() {
        super(null);
    }

    /** Stopped at {@code stoppedAt} until advanced. */
    protected TestClock(Instant stoppedAt) {
        super(stoppedAt);
    }
}
