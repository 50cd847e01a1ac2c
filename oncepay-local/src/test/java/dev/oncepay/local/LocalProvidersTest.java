package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which function of the local run is told which provider account, key, signing secret and charge queue. */
class LocalProvidersTest {
    private static final String SIM = "http://127.0.0.1:8090";
    private static final String QUEUES = "http://127.0.0.1:9324/000000000000/";

    @Test
    void simByDefaultWithTheKeyForChargeAndReconcileAndTheSecretsForWebhookOnly() {
        LocalRunOptions o = LocalRunOptions.parse(List.of(), Map.of());
        for (String function : List.of("charge", "reconcile", "charge-worker")) {
            Map<String, String> env = environment(function, o);
            assertEquals("sim", env.get("ONCEPAY_PROVIDER_ID"));
            assertEquals(SIM, env.get("ONCEPAY_PROVIDER_URL"));
            assertEquals("local-sim-key", env.get("ONCEPAY_PROVIDER_API_KEY"));
            assertTrue(env.keySet().stream().noneMatch(k -> k.startsWith("ONCEPAY_WEBHOOK_SECRETS_")), function + ": " + env);
            assertNull(env.get("ONCEPAY_PROVIDER_ROUTING"), "one account, nothing per tenant");
        }
        Map<String, String> webhook = environment("webhook", o);
        assertEquals(Map.of("ONCEPAY_WEBHOOK_SECRETS_SIM_DEFAULT", "local-sim-secret"), secrets(webhook),
                "the default account's secret: no other account");
        assertTrue(webhook.keySet().stream().noneMatch(k -> k.contains("API_KEY")), "no API key: " + webhook);
    }

    @Test
    void stripeAsTheDefaultAccountOnTheSameSimulator() {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--provider", "stripe", "--stripe-webhook-secret", "whsec_x",
                "--stripe-api-key", "sk_test_x"), Map.of());
        Map<String, String> charge = environment("charge", o);
        assertEquals("stripe", charge.get("ONCEPAY_PROVIDER_ID"));
        assertEquals(SIM, charge.get("ONCEPAY_PROVIDER_URL"), "the Stripe mode shares the simulator's port");
        assertEquals("sk_test_x", charge.get("ONCEPAY_PROVIDER_API_KEY"));
        assertEquals(Map.of("ONCEPAY_WEBHOOK_SECRETS_STRIPE_DEFAULT", "whsec_x"),
                secrets(environment("webhook", o)));
        assertFalse(environment("webhook", o).containsKey("ONCEPAY_PROVIDER_API_KEY"));
    }

    @Test
    void aTenantOnAnotherProviderGetsAnAccountOfItsOwn() {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--tenant-provider", "merchant-b=stripe,merchant-c=sim"),
                Map.of());
        Map<String, String> reconcile = environment("reconcile", o);
        assertEquals("sim", reconcile.get("ONCEPAY_PROVIDER_ID"));
        assertEquals("{\"oncepay.provider.accounts.stripe.provider\":\"stripe\",\"oncepay.provider.accounts.stripe.url\":\""
                + SIM + "\",\"oncepay.provider.tenants.merchant-b\":\"stripe\"}", reconcile.get("ONCEPAY_PROVIDER_ROUTING"),
                "merchant-c is on the default account already");
        for (String function : List.of("charge", "reconcile", "charge-worker")) {
            Map<String, String> env = environment(function, o);
            assertEquals("local-sim-key", env.get("ONCEPAY_PROVIDER_API_KEY"));
            assertTrue(env.get("ONCEPAY_PROVIDER_ACCOUNTS_STRIPE_API_KEY").startsWith("sk_test_"));
        }
        Map<String, String> webhook = environment("webhook", o);
        assertFalse(webhook.containsKey("ONCEPAY_PROVIDER_ROUTING"), "as deployed: routing for charge, reconcile and the worker");
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
        Map<String, String> charge = environment("charge", o);
        assertEquals("sk_test_x", charge.get("ONCEPAY_PROVIDER_API_KEY"));
        assertEquals("sk_test_x_2", charge.get("ONCEPAY_PROVIDER_ACCOUNTS_STRIPE2_API_KEY"));
        assertEquals(Map.of("oncepay.provider.accounts.stripe2.provider", "stripe",
                "oncepay.provider.accounts.stripe2.url", SIM, "oncepay.provider.accounts.stripe2.queue-url",
                QUEUES + "oncepay-charges-stripe2", "oncepay.provider.tenants.merchant-b", "stripe2"), routing(charge));
        assertEquals(Map.of("ONCEPAY_WEBHOOK_SECRETS_STRIPE_DEFAULT", "whsec_x",
                "ONCEPAY_WEBHOOK_SECRETS_STRIPE_STRIPE2", "whsec_x_2"), secrets(environment("webhook", o)));
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
        charge.put("oncepay.provider.accounts.stripe.queue-url", QUEUES + "oncepay-charges-stripe");
        charge.put("oncepay.orders.tenants.merchant-instalments.once-per-reference", "false");
        charge.put("oncepay.orders.tenants.Org:7.once-per-reference", "false");
        assertEquals(charge, routing(environment("charge", o)));
        assertEquals(routing, routing(environment("reconcile", o)));
        assertFalse(environment("webhook", o).containsKey("ONCEPAY_PROVIDER_ROUTING"));
    }

    /** As deployed: charge sends to each account's queue, the worker sends its retries there; no other function. */
    @Test
    void eachAccountsChargeQueueReachesChargeAndTheWorkerOnly() throws Exception {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--tenant-provider", "merchant-b=stripe,merchant-c=stripe2"),
                Map.of());
        for (String function : List.of("charge", "charge-worker")) {
            Map<String, String> env = environment(function, o);
            assertEquals(QUEUES + "oncepay-charges-default", env.get("ONCEPAY_PROVIDER_QUEUE_URL"), function);
            Map<String, String> routing = routing(env);
            assertEquals(QUEUES + "oncepay-charges-stripe", routing.get("oncepay.provider.accounts.stripe.queue-url"));
            assertEquals(QUEUES + "oncepay-charges-stripe2", routing.get("oncepay.provider.accounts.stripe2.queue-url"));
            assertEquals("stripe", routing.get("oncepay.provider.accounts.stripe.provider"), "beside the account's other properties");
        }
        for (String function : List.of("reconcile", "webhook")) {
            Map<String, String> env = environment(function, o);
            assertFalse(env.containsKey("ONCEPAY_PROVIDER_QUEUE_URL"), function);
            assertFalse(env.getOrDefault("ONCEPAY_PROVIDER_ROUTING", "").contains("queue-url"), function);
        }
        assertEquals(List.of("default", "stripe", "stripe2"), LocalProviders.accounts(o));
    }

    /** Per-tenant default async is plain configuration of charge, the function that answers 202 for it. */
    @Test
    void respondAsyncTenantsReachChargeOnly() throws Exception {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--respond-async", "merchant-q,org:9"), Map.of());
        assertEquals(Map.of("oncepay.queue.tenants.merchant-q.respond-async", "true",
                "oncepay.queue.tenants.org:9.respond-async", "true"), routing(environment("charge", o)));
        for (String function : List.of("reconcile", "charge-worker", "webhook")) {
            assertFalse(environment(function, o).containsKey("ONCEPAY_PROVIDER_ROUTING"), function);
        }
    }

    /** {@code function}'s provider environment, the simulator at {@link #SIM} and each account's queue under {@link #QUEUES}. */
    private static Map<String, String> environment(String function, LocalRunOptions o) {
        Map<String, String> queues = new java.util.LinkedHashMap<>();
        LocalProviders.accounts(o).forEach(account -> queues.put(account, QUEUES + "oncepay-charges-" + account));
        return LocalProviders.environment(function, o, SIM, queues);
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
