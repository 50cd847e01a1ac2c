package dev.oncepay.charge;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * An open charge breaker is due a probe at once: the attempt after a failed probe asks for the
 * probe again, within the same call, so a call can meet the breaker's probe race after an attempt
 * that may have reached the provider.
 */
public class ProbeAtOnceProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("oncepay.provider.charge-call.breaker-delay", "0S");
    }
}
