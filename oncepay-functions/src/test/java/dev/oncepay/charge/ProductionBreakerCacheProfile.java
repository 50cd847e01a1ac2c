package dev.oncepay.charge;

import dev.oncepay.testing.StoppedTestClock;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;
import java.util.Set;

/**
 * The breaker's cache period as in production (1 s), which a call hanging for the tests' read
 * timeout (1.5 s) outlasts, on a stopped clock: a copy of the breaker expires only when the test
 * advances the clock, so what a sandbox still holds uncounted is the test's choice, not the machine's.
 */
public class ProductionBreakerCacheProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("oncepay.provider.breaker-cache", "1S");
    }

    @Override
    public Set<Class<?>> getEnabledAlternatives() {
        return Set.of(StoppedTestClock.class);
    }
}
