package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import io.smallrye.config.SmallRyeConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The secrets as they are now, for the code that signs, verifies or calls with them: webhook
 * signing secrets and provider API keys are looked up in the configuration at each use instead of
 * being kept from startup, so a reload of the secrets ({@link #reload()}, after a SnapStart restore)
 * reaches them. The lookup is the configuration's own, with its order of sources (the environment
 * still overrides a secret) and its list syntax, so it answers what the startup mappings
 * ({@code WebhookConfig}, {@code OncepayConfig}) answered for the same properties.
 */
@ApplicationScoped
public class Secrets {
    private static final Pattern NAME = Pattern.compile(DeploymentSettings.NAME_PATTERN);

    private final SmallRyeConfig config;

    public Secrets(SmallRyeConfig config) {
        this.config = config;
    }

    /** The signing secrets of webhooks from {@code provider} ({@code oncepay.webhook.secrets.<provider>}); empty if none. */
    public List<String> signingSecrets(String provider) {
        if (provider == null || !NAME.matcher(provider).matches()) {
            return List.of();
        }
        return config.getOptionalValues(DeploymentSettings.WEBHOOK_SECRETS_PREFIX + provider, String.class)
                .orElse(List.of());
    }

    /** The API key in {@code property} ({@code oncepay.provider.api-key} or an account's), if set and not blank. */
    public Optional<String> apiKey(String property) {
        return config.getOptionalValue(property, String.class).filter(key -> !key.isBlank());
    }

    /**
     * Reads this function's Secrets Manager secrets again, if it has any.
     *
     * @return the names of the secret properties now held (never values); empty if the function reads no secrets
     * @throws IllegalStateException if they cannot be read or are refused; the previous ones stay in use
     */
    public Set<String> reload() {
        for (ConfigSource source : config.getConfigSources()) {
            if (source instanceof SecretsConfigSource secrets) {
                return secrets.reload();
            }
        }
        return Set.of();
    }
}
