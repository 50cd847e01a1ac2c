package dev.oncepay.webhook;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The application exporting the {@code webhook} function. Every webhook test class uses this one
 * profile, so the test run boots this application once. Provider {@code sim} has two active
 * secrets (the simulator's and the next one of a rotation); {@code acme} is a second provider.
 */
public class WebhookTestProfile implements QuarkusTestProfile {
    public static final String SIM_SECRET = "local-sim-secret";
    public static final String NEXT_SIM_SECRET = "next-sim-secret";
    public static final String ACME_SECRET = "acme-secret";

    @Override
    public Map<String, String> getConfigOverrides() {
        String sim = NEXT_SIM_SECRET + "," + SIM_SECRET;
        return Map.of(
                "quarkus.funqy.export", "webhook",
                // %test-prefixed too: a profiled property in application.properties outranks a plain override.
                "oncepay.webhook.secrets.sim", sim,
                "%test.oncepay.webhook.secrets.sim", sim,
                "oncepay.webhook.secrets.acme", ACME_SECRET);
    }
}
