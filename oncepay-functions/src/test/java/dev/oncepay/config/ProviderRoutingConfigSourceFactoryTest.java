package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Plain provider routing and the order guard from one environment variable, as registered
 * (ServiceLoader) in a real configuration.
 */
class ProviderRoutingConfigSourceFactoryTest {
    private static final String ROUTING = """
            {"oncepay.provider.tenants.Merchant-A": "stripe-eu",
             "oncepay.provider.tenants.org_7:eu@x": "default",
             "oncepay.provider.accounts.stripe-eu.provider": "stripe",
             "oncepay.provider.accounts.stripe-eu.url": "https://api.stripe.com",
             "oncepay.provider.accounts.stripe-eu.lookup-lag": "2H"}
            """;

    @Test
    void tenantsAndAccountsBecomeConfigurationSpelledAsGiven() {
        SmallRyeConfig config = config(Map.of(DeploymentSettings.ENV_PROVIDER_ROUTING, ROUTING));

        assertEquals("stripe-eu", config.getRawValue("oncepay.provider.tenants.Merchant-A"));
        assertEquals("default", config.getRawValue("oncepay.provider.tenants.org_7:eu@x"));
        assertEquals("stripe", config.getRawValue("oncepay.provider.accounts.stripe-eu.provider"));
        assertEquals("https://api.stripe.com", config.getRawValue("oncepay.provider.accounts.stripe-eu.url"));
        assertEquals("2H", config.getRawValue("oncepay.provider.accounts.stripe-eu.lookup-lag"));
    }

    /**
     * The names a deployment writes (the contract's) reach the guard as {@code OrderGuard} reads it,
     * tenant ids with case, dashes and colons, which no variable name spells, included.
     */
    @Test
    void theOrderGuardsSettingsReachTheOrdersConfiguration() throws JsonProcessingException {
        String orders = new ObjectMapper().writeValueAsString(Map.of(
                DeploymentSettings.ORDERS_ONCE_PER_REFERENCE, "false",
                DeploymentSettings.orderGuardProperty("Merchant-A"), "true",
                DeploymentSettings.orderGuardProperty("org_7:eu@x"), "false"));
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors().addDiscoveredSources()
                .withSources(new EnvConfigSource(Map.of(DeploymentSettings.ENV_PROVIDER_ROUTING, orders), 300))
                .withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(OncepayConfig.class)
                .build();
        OrdersConfig guard = config.getConfigMapping(OncepayConfig.class).orders();

        assertFalse(guard.oncePerReference());
        assertEquals(Optional.of(true), guard.tenants().get("Merchant-A").oncePerReference());
        assertEquals(Optional.of(false), guard.tenants().get("org_7:eu@x").oncePerReference());
    }

    @Test
    void queuedChargesSettingsReachTheQueueAndAccountConfiguration() throws JsonProcessingException {
        String queued = new ObjectMapper().writeValueAsString(Map.of(
                DeploymentSettings.QUEUE_RESPOND_ASYNC, "false",
                DeploymentSettings.respondAsyncProperty("Merchant-A"), "true",
                DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + "stripe-eu." + DeploymentSettings.ACCOUNT_PROVIDER, "stripe",
                DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + "stripe-eu." + DeploymentSettings.ACCOUNT_URL, "https://api.stripe.com",
                DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + "stripe-eu." + DeploymentSettings.ACCOUNT_QUEUE_URL,
                "https://sqs.eu-west-1.amazonaws.com/123456789012/oncepay-charges-stripe-eu"));
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors().addDiscoveredSources()
                .withSources(new EnvConfigSource(Map.of(DeploymentSettings.ENV_PROVIDER_ROUTING, queued), 300))
                .withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(OncepayConfig.class)
                .build();
        OncepayConfig oncepay = config.getConfigMapping(OncepayConfig.class);

        assertTrue(oncepay.queue().respondAsyncFor("Merchant-A"));
        assertFalse(oncepay.queue().respondAsyncFor("merchant-b"));
        assertEquals(Optional.of("https://sqs.eu-west-1.amazonaws.com/123456789012/oncepay-charges-stripe-eu"),
                oncepay.provider().accounts().get("stripe-eu").queueUrl());
    }

    @Test
    void withoutTheVariableNothingIsAdded() {
        SmallRyeConfig config = config(Map.of());
        config.getConfigSources().forEach(s -> assertFalse(s.getName().equals(ProviderRoutingConfigSourceFactory.SOURCE_NAME)));
    }

    @Test
    void theEnvironmentStillOverridesIt() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors().addDiscoveredSources()
                .withSources(new PropertiesConfigSource(Map.of("oncepay.provider.accounts.stripe-eu.url", "http://file"),
                        "application.properties", 250))
                .withSources(new EnvConfigSource(Map.of(DeploymentSettings.ENV_PROVIDER_ROUTING, ROUTING,
                        "ONCEPAY_PROVIDER_ACCOUNTS_STRIPE_EU_PROVIDER", "sim"), 300))
                .build();
        assertEquals("https://api.stripe.com", config.getRawValue("oncepay.provider.accounts.stripe-eu.url"));
        assertEquals("sim", config.getRawValue("oncepay.provider.accounts.stripe-eu.provider"));
    }

    /** An API key in plain configuration would sit in the Lambda console for anyone with read access. */
    @Test
    void refusesSecretsAndAnythingElseNamingTheKeyNotTheValue() {
        assertRefused("{\"oncepay.provider.accounts.stripe-eu.api-key\": \"VALUE-1\"}", "oncepay.provider.accounts.stripe-eu.api-key",
                "is a secret");
        assertRefused("{\"oncepay.provider.api-key\": \"VALUE-1\"}", "oncepay.provider.api-key", "is a secret");
        assertRefused("{\"oncepay.webhook.secrets.stripe.stripe-eu\": \"VALUE-1\"}", "oncepay.webhook.secrets.stripe.stripe-eu", "is a secret");
        assertRefused("{\"oncepay.table\": \"VALUE-1\"}", "oncepay.table", "is not provider routing");
        assertRefused("{\"oncepay.provider.url\": \"https://VALUE-1\"}", "oncepay.provider.url", "is not provider routing");
        assertRefused("{\"oncepay.provider.accounts.stripe-eu.timeout\": \"VALUE-1\"}", "oncepay.provider.accounts.stripe-eu.timeout", "");
        assertRefused("{\"oncepay.provider.accounts.a.b.url\": \"https://VALUE-1\"}", "oncepay.provider.accounts.a.b.url", "account");
        assertRefused("{\"oncepay.provider.accounts.x.url\": \"ftp://VALUE-1\"}", "oncepay.provider.accounts.x.url", "URL");
        assertRefused("{\"oncepay.provider.accounts.x.url\": \"VALUE-1\"}", "oncepay.provider.accounts.x.url", "URL");
        assertRefused("{\"oncepay.provider.accounts.x.provider\": \"VALUE 1\"}", "oncepay.provider.accounts.x.provider", "provider id");
        assertRefused("{\"oncepay.provider.accounts.x.lookup-lag\": \"VALUE-1\"}", "oncepay.provider.accounts.x.lookup-lag", "duration");
        assertRefused("{\"oncepay.provider.accounts.x.lookup-lag\": \"-PT1M\"}", "oncepay.provider.accounts.x.lookup-lag", "duration");
        assertRefused("{\"oncepay.provider.tenants.a.b\": \"x\"}", "oncepay.provider.tenants.a.b", "tenant");
        assertRefused("{\"oncepay.provider.tenants.t\": \"VALUE 1\"}", "oncepay.provider.tenants.t", "account");
        assertRefused("{\"oncepay.provider.tenants.t\": 7}", "oncepay.provider.tenants.t", "string");
        assertRefused("{\"oncepay.orders.once-per-reference\": \"VALUE-1\"}", "oncepay.orders.once-per-reference", "true or false");
        assertRefused("{\"oncepay.orders.tenants.t.once-per-reference\": \"VALUE\"}", "oncepay.orders.tenants.t.once-per-reference",
                "true or false");
        assertRefused("{\"oncepay.orders.tenants.a.b.once-per-reference\": \"false\"}", "oncepay.orders.tenants.a.b.once-per-reference",
                "<tenant>");
        assertRefused("{\"oncepay.orders.tenants.once-per-reference\": \"false\"}", "oncepay.orders.tenants.once-per-reference",
                "<tenant>");
        assertRefused("{\"oncepay.orders.tenants.t.retention\": \"VALUE-1\"}", "oncepay.orders.tenants.t.retention", "<tenant>");
        assertRefused("{\"oncepay.orders.retention\": \"VALUE-1\"}", "oncepay.orders.retention", "is not provider routing");
        assertRefused("{\"oncepay.provider.accounts.x.queue-url\": \"VALUE-1\"}", "oncepay.provider.accounts.x.queue-url", "URL");
        assertRefused("{\"oncepay.queue.respond-async\": \"VALUE-1\"}", "oncepay.queue.respond-async", "true or false");
        assertRefused("{\"oncepay.queue.tenants.t.respond-async\": \"VALUE\"}", "oncepay.queue.tenants.t.respond-async",
                "true or false");
        assertRefused("{\"oncepay.queue.tenants.t.horizon\": \"VALUE-1\"}", "oncepay.queue.tenants.t.horizon", "<tenant>");
        assertRefused("{\"oncepay.queue.horizon\": \"VALUE-1\"}", "oncepay.queue.horizon", "is not provider routing");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> config(Map.of(DeploymentSettings.ENV_PROVIDER_ROUTING, "[\"VALUE-1\"]")));
        assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
    }

    private static void assertRefused(String routing, String key, String problem) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> config(Map.of(DeploymentSettings.ENV_PROVIDER_ROUTING, routing)));
        assertTrue(e.getMessage().startsWith(DeploymentSettings.ENV_PROVIDER_ROUTING), e.getMessage());
        assertTrue(e.getMessage().contains("'" + key + "'") && e.getMessage().contains(problem), e.getMessage());
        assertFalse(e.getMessage().contains("VALUE"), e.getMessage());
    }

    private static SmallRyeConfig config(Map<String, String> env) {
        return new SmallRyeConfigBuilder().addDefaultInterceptors().addDiscoveredSources()
                .withSources(new EnvConfigSource(env, 300))
                .build();
    }
}
