package dev.oncepay.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.config.Secrets;
import dev.oncepay.provider.psp.PspWebhookFormat;
import dev.oncepay.config.SigningSecret;
import dev.oncepay.provider.webhook.WebhookFormats;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;

/**
 * How a deployment configures signing secrets: per provider account, several during a rotation,
 * from the environment or properties; and what the webhook function refuses to start with.
 */
class WebhookConfigTest {
    private static final WebhookFormats FORMATS = new WebhookFormats(List.of(new PspWebhookFormat()));

    @Test
    void secretsPerAccountFromEnvironmentWithDefaults() {
        SmallRyeConfig config = config(new EnvConfigSource(Map.of(
                "ONCEPAY_WEBHOOK_SECRETS_SIM_DEFAULT", "new-secret,old-secret",
                "ONCEPAY_WEBHOOK_SECRETS_ACME_EU", "acme-secret"), 300));
        WebhookConfig webhook = config.getConfigMapping(WebhookConfig.class);
        assertEquals(Map.of("default", List.of("new-secret", "old-secret")), webhook.secrets().get("sim"));
        assertEquals(Map.of("eu", List.of("acme-secret")), webhook.secrets().get("acme"));
        assertEquals(Duration.ofSeconds(300), webhook.tolerance());
        assertEquals(Duration.ofDays(7), webhook.retention());

        Secrets secrets = new Secrets(config);
        assertEquals(List.of(new SigningSecret("default", "new-secret"), new SigningSecret("default", "old-secret")),
                secrets.signingSecrets("sim"));
        assertEquals(List.of(new SigningSecret("eu", "acme-secret")), secrets.signingSecrets("acme"));
        WebhookStartupCheck.check(secrets, FORMATS);
    }

    @Test
    void accountsOfOneProviderEachKeepTheirOwnSecrets() {
        Secrets secrets = new Secrets(config(properties(Map.of(
                "oncepay.webhook.secrets.stripe.stripe-eu", "whsec_eu_next,whsec_eu",
                "oncepay.webhook.secrets.stripe.stripe-us", "whsec_us"))));
        assertEquals(List.of(new SigningSecret("stripe-eu", "whsec_eu_next"), new SigningSecret("stripe-eu", "whsec_eu"),
                new SigningSecret("stripe-us", "whsec_us")), secrets.signingSecrets("stripe"));
        assertEquals(List.of(), secrets.signingSecrets("sim"));
    }

    @Test
    void noSecretsConfiguredMeansNoProviders() {
        SmallRyeConfig config = config(properties(Map.of("oncepay.webhook.tolerance", "60S")));
        WebhookConfig webhook = config.getConfigMapping(WebhookConfig.class);
        assertEquals(Map.of(), webhook.secrets());
        assertEquals(Duration.ofSeconds(60), webhook.tolerance());
        assertEquals(Map.of(), new Secrets(config).signingSecrets());
    }

    /**
     * The per-provider form would leave open whose payments an event may move: the function does
     * not start, naming the property (never its value) and the form it needs.
     */
    @Test
    void aSecretThatNamesNoAccountStopsTheWebhookFunction() {
        for (ConfigSource source : List.of(properties(Map.of("oncepay.webhook.secrets.stripe", "VALUE-1")),
                new EnvConfigSource(Map.of("ONCEPAY_WEBHOOK_SECRETS_STRIPE", "VALUE-1"), 300))) {
            Secrets secrets = new Secrets(config(source));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> WebhookStartupCheck.check(secrets, FORMATS));
            assertTrue(e.getMessage().contains("oncepay.webhook.secrets.stripe"), e.getMessage());
            assertTrue(e.getMessage().contains("<provider>.<account>"), e.getMessage());
            assertFalse(e.getMessage().contains("VALUE-1"), e.getMessage());
            assertEquals(Map.of(), secrets.signingSecrets(), "and it verifies nothing with it");
        }
    }

    @Test
    void oneSecretOfTwoAccountsStopsTheWebhookFunction() {
        Secrets secrets = new Secrets(config(properties(Map.of(
                "oncepay.webhook.secrets.sim.eu", "VALUE-shared,VALUE-eu",
                "oncepay.webhook.secrets.sim.us", "VALUE-shared"))));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> WebhookStartupCheck.check(secrets, FORMATS));
        assertTrue(e.getMessage().contains("sim/eu") && e.getMessage().contains("sim/us"), e.getMessage());
        assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
    }

    private static PropertiesConfigSource properties(Map<String, String> properties) {
        return new PropertiesConfigSource(properties, "test", 100);
    }

    private static SmallRyeConfig config(ConfigSource source) {
        return new SmallRyeConfigBuilder()
                .withMapping(WebhookConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()) // Quarkus' "300S" / "7D" syntax
                .withSources(source)
                .build();
    }
}
