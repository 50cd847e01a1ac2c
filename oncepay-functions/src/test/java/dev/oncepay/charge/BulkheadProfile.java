package dev.oncepay.charge;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The bulkhead counting calls as in production: a call still in flight after 300 ms takes a
 * slot, and so does a sandbox's first call to an account, at entry. The test profile's default
 * waits a minute and counts no first call, so that no other test's request counts or timings
 * depend on how fast this machine happens to be or on which test called an account first.
 */
public class BulkheadProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("oncepay.provider.in-flight-after", "300MS", "oncepay.provider.first-call-counted", "true");
    }
}
