package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which function of the local run is told which provider account, key and signing secret. */
class LocalProvidersTest {
    private static final String SIM = "http://127.0.0.1:8090";

    @Test
    void simByDefaultWithTheKeyForChargeAndReconcileAndTheSecretsForWebhookOnly() {
        LocalRunOptions o = LocalRunOptions.parse(List.of(), Map.of());
        for (String function : List.of("charge", "reconcile")) {
            Map<String, String> env = LocalProviders.environment(function, o, SIM);
            assertEquals("sim", env.get("ONCEPAY_PROVIDER_ID"));
            assertEquals(SIM, env.get("ONCEPAY_PROVIDER_URL"));
            assertEquals("local-sim-key", env.get("ONCEPAY_PROVIDER_API_KEY"));
            assertTrue(env.keySet().stream().noneMatch(k -> k.startsWith("ONCEPAY_WEBHOOK_SECRETS_")), function + ": " + env);
            assertNull(env.get("ONCEPAY_PROVIDER_ROUTING"), "one account, nothing per tenant");
        }
        Map<String, String> webhook = LocalProviders.environment("webhook", o, SIM);
        assertEquals(Map.of("ONCEPAY_WEBHOOK_SECRETS_SIM_DEFAULT", "local-sim-secret"), secrets(webhook),
                "the default account's secret: no other account");
        assertTrue(webhook.keySet().stream().noneMatch(k -> k.contains("API_KEY")), "no API key: " + webhook);
    }

    @Test
    void stripeAsTheDefaultAccountOnTheSameSimulator() {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--provider", "stripe", "--stripe-webhook-secret", "whsec_x",
                "--stripe-api-key", "sk_test_x"), Map.of());
        Map<String, String> charge = LocalProviders.environment("charge", o, SIM);
        assertEquals("stripe", charge.get("ONCEPAY_PROVIDER_ID"));
        assertEquals(SIM, charge.get("ONCEPAY_PROVIDER_URL"), "the Stripe mode shares the simulator's port");
        assertEquals("sk_test_x", charge.get("ONCEPAY_PROVIDER_API_KEY"));
        assertEquals(Map.of("ONCEPAY_WEBHOOK_SECRETS_STRIPE_DEFAULT", "whsec_x"),
                secrets(LocalProviders.environment("webhook", o, SIM)));
        assertFalse(LocalProviders.environment("webhook", o, SIM).containsKey("ONCEPAY_PROVIDER_API_KEY"));
    }

    @Test
    void aTenantOnAnotherProviderGetsAnAccountOfItsOwn() {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--tenant-provider", "merchant-b=stripe,merchant-c=sim"),
                Map.of());
        Map<String, String> reconcile = LocalProviders.environment("reconcile", o, SIM);
        assertEquals("sim", reconcile.get("ONCEPAY_PROVIDER_ID"));
        for (String function : List.of("charge", "reconcile")) {
            Map<String, String> env = LocalProviders.environment(function, o, SIM);
            assertEquals("{\"oncepay.provider.accounts.stripe.provider\":\"stripe\",\"oncepay.provider.accounts.stripe.url\":\""
                    + SIM + "\",\"oncepay.provider.tenants.merchant-b\":\"stripe\"}", env.get("ONCEPAY_PROVIDER_ROUTING"),
                    "merchant-c is on the default account already");
            assertEquals("local-sim-key", env.get("ONCEPAY_PROVIDER_API_KEY"));
            assertTrue(env.get("ONCEPAY_PROVIDER_ACCOUNTS_STRIPE_API_KEY").startsWith("sk_test_"));
        }
        Map<String, String> webhook = LocalProviders.environment("webhook", o, SIM);
        assertFalse(webhook.containsKey("ONCEPAY_PROVIDER_ROUTING"), "as deployed: routing for charge and reconcile");
        assertFalse(webhook.containsKey("ONCEPAY_PROVIDER_ACCOUNTS_STRIPE_API_KEY"));
        assertEquals(Map.of("ONCEPAY_WEBHOOK_SECRETS_SIM_DEFAULT", "local-sim-secret",
                "ONCEPAY_WEBHOOK_SECRETS_STRIPE_STRIPE", "whsec_local_stripe_secret"), secrets(webhook),
                "each account's own secret, under its provider and account name");
        assertEquals("default sim; merchant-b -> stripe; merchant-c -> sim", LocalProviders.describe(o));
    }

    /** Two Stripe accounts: each with its own API key and signing secret, so one's events never move the other's payments. */
    @Test
    void aSecondStripeAccountHasItsOwnKeyAndSigningSecret() throws Exception {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--provider", "stripe", "--tenant-provider", "merchant-b=stripe2",
                "--stripe-webhook-secret", "whsec_x", "--stripe-api-key", "sk_test_x"), Map.of());
        Map<String, String> charge = LocalProviders.environment("charge", o, SIM);
        assertEquals("sk_test_x", charge.get("ONCEPAY_PROVIDER_API_KEY"));
        assertEquals("sk_test_x_2", charge.get("ONCEPAY_PROVIDER_ACCOUNTS_STRIPE2_API_KEY"));
        assertEquals(Map.of("oncepay.provider.accounts.stripe2.provider", "stripe",
                "oncepay.provider.accounts.stripe2.url", SIM, "oncepay.provider.tenants.merchant-b", "stripe2"), routing(charge));
        assertEquals(Map.of("ONCEPAY_WEBHOOK_SECRETS_STRIPE_DEFAULT", "whsec_x",
                "ONCEPAY_WEBHOOK_SECRETS_STRIPE_STRIPE2", "whsec_x_2"), secrets(LocalProviders.environment("webhook", o, SIM)));
        assertEquals("default stripe; merchant-b -> stripe2", LocalProviders.describe(o));
    }

    /** As deployed: charge, the one function that binds orders, is told which tenants' orders are not guarded. */
    @Test
    void unguardedTenantsReachChargeOnly() throws Exception {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--unguarded-tenant", "merchant-instalments,Org:7",
                "--tenant-provider", "merchant-b=stripe"), Map.of());
        Map<String, String> routing = Map.of("oncepay.provider.accounts.stripe.provider", "stripe",
                "oncepay.provider.accounts.stripe.url", SIM, "oncepay.provider.tenants.merchant-b", "stripe");
        Map<String, String> charge = new java.util.TreeMap<>(routing);
        charge.put("oncepay.orders.tenants.merchant-instalments.once-per-reference", "false");
        charge.put("oncepay.orders.tenants.Org:7.once-per-reference", "false");
        assertEquals(charge, routing(LocalProviders.environment("charge", o, SIM)));
        assertEquals(routing, routing(LocalProviders.environment("reconcile", o, SIM)));
        assertFalse(LocalProviders.environment("webhook", o, SIM).containsKey("ONCEPAY_PROVIDER_ROUTING"));
    }

    private static Map<String, String> routing(Map<String, String> env) throws Exception {
        return new com.fasterxml.jackson.databind.ObjectMapper().readValue(env.get("ONCEPAY_PROVIDER_ROUTING"),
                new com.fasterxml.jackson.core.type.TypeReference<Map<String, String>>() { });
    }

    private static Map<String, String> secrets(Map<String, String> env) {
        Map<String, String> secrets = new java.util.TreeMap<>(env);
        secrets.keySet().removeIf(k -> !k.startsWith("ONCEPAY_WEBHOOK_SECRETS_"));
        return secrets;
    }
}
