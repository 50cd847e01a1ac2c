package dev.oncepay.webhook;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The application exporting the {@code webhook} function. Every webhook test class uses this one
 * profile, so the test run boots this application once. Providers {@code sim} and {@code stripe}
 * have two active secrets each (the simulator's and the next one of a rotation); {@code acme} has
 * a secret but no webhook format (no such endpoint).
 */
public class WebhookTestProfile implements QuarkusTestProfile {
    public static final String SIM_SECRET = "local-sim-secret";
    public static final String NEXT_SIM_SECRET = "next-sim-secret";
    public static final String STRIPE_SECRET = "whsec_local_stripe_secret";
    public static final String NEXT_STRIPE_SECRET = "whsec_next_stripe_secret";
    public static final String ACME_SECRET = "acme-secret";

    @Override
    public Map<String, String> getConfigOverrides() {
        String sim = NEXT_SIM_SECRET + "," + SIM_SECRET;
        String stripe = NEXT_STRIPE_SECRET + "," + STRIPE_SECRET;
        return Map.of(
                "quarkus.funqy.export", "webhook",
                // %test-prefixed too: a profiled property in application.properties outranks a plain override.
                "oncepay.webhook.secrets.sim", sim,
                "%test.oncepay.webhook.secrets.sim", sim,
                "oncepay.webhook.secrets.stripe", stripe,
                "%test.oncepay.webhook.secrets.stripe", stripe,
                "oncepay.webhook.secrets.acme", ACME_SECRET);
    }
}
