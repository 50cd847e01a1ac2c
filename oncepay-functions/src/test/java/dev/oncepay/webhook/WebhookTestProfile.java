package dev.oncepay.webhook;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.HashMap;
import java.util.Map;

/**
 * The application exporting the {@code webhook} function. Every webhook test class uses this one
 * profile, so the test run boots this application once. The accounts {@code sim/default} and
 * {@code stripe/stripe-test} have two active secrets each (the next one of a rotation and the
 * previous one); a second Stripe account, {@code stripe/stripe-other}, has its own; {@code acme}
 * has a secret but no webhook format (no such endpoint).
 */
public class WebhookTestProfile implements QuarkusTestProfile {
    public static final String SIM_SECRET = "local-sim-secret";
    public static final String NEXT_SIM_SECRET = "next-sim-secret";
    public static final String STRIPE_ACCOUNT = "stripe-test";
    public static final String STRIPE_SECRET = "whsec_local_stripe_secret";
    public static final String NEXT_STRIPE_SECRET = "whsec_next_stripe_secret";
    public static final String OTHER_STRIPE_ACCOUNT = "stripe-other";
    public static final String OTHER_STRIPE_SECRET = "whsec_other_account_secret";
    public static final String ACME_SECRET = "acme-secret";

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("quarkus.funqy.export", "webhook");
        // %test-prefixed too: a profiled property in application.properties outranks a plain override.
        secrets(overrides, "oncepay.webhook.secrets.sim.default", NEXT_SIM_SECRET + "," + SIM_SECRET);
        secrets(overrides, "oncepay.webhook.secrets.stripe." + STRIPE_ACCOUNT, NEXT_STRIPE_SECRET + "," + STRIPE_SECRET);
        secrets(overrides, "oncepay.webhook.secrets.stripe." + OTHER_STRIPE_ACCOUNT, OTHER_STRIPE_SECRET);
        overrides.put("oncepay.webhook.secrets.acme.default", ACME_SECRET);
        return overrides;
    }

    private static void secrets(Map<String, String> overrides, String property, String secrets) {
        overrides.put(property, secrets);
        overrides.put("%test." + property, secrets);
    }
}
