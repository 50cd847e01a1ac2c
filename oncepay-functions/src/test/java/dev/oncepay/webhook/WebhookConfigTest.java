package dev.oncepay.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a deployment configures secrets: from the environment, several per provider. */
class WebhookConfigTest {
    @Test
    void secretsPerProviderFromEnvironmentWithDefaults() {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(WebhookConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()) // Quarkus' "300S" / "7D" syntax
                .withSources(new EnvConfigSource(Map.of(
                        "ONCEPAY_WEBHOOK_SECRETS_SIM", "new-secret,old-secret",
                        "ONCEPAY_WEBHOOK_SECRETS_ACME", "acme-secret"), 300))
                .build();
        WebhookConfig webhook = config.getConfigMapping(WebhookConfig.class);
        assertEquals(List.of("new-secret", "old-secret"), webhook.secrets().get("sim"));
        assertEquals(List.of("acme-secret"), webhook.secrets().get("acme"));
        assertEquals(Duration.ofSeconds(300), webhook.tolerance());
        assertEquals(Duration.ofDays(7), webhook.retention());
    }

    @Test
    void noSecretsConfiguredMeansNoProviders() {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(WebhookConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()) // Quarkus' "300S" / "7D" syntax
                .withSources(new PropertiesConfigSource(Map.of("oncepay.webhook.tolerance", "60S"), "test", 100))
                .build();
        WebhookConfig webhook = config.getConfigMapping(WebhookConfig.class);
        assertEquals(Map.of(), webhook.secrets());
        assertEquals(Duration.ofSeconds(60), webhook.tolerance());
    }
}
