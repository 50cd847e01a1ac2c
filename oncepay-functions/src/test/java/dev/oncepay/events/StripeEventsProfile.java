package dev.oncepay.events;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** A Stripe tenant with an endpoint for every event: what a customer's action and a decline tell the merchant. */
public class StripeEventsProfile implements QuarkusTestProfile {
    static final String TENANT = "merchant-events-stripe";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("oncepay.provider.tenants." + TENANT, "stripe-test",
                "oncepay.events.endpoints." + TENANT + ".orders.url", "http://localhost:9/merchant/orders",
                "oncepay.events.endpoints." + TENANT + ".orders.secrets", "whsec_stripe_orders");
    }
}
