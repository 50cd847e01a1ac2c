package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import io.smallrye.config.SmallRyeConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The secrets as they are now, for the code that signs, verifies or calls with them: provider API
 * keys are looked up in the configuration at each use, and the webhook signing secrets are read
 * once and again after each reload ({@link #reload()}, after a SnapStart restore), instead of being
 * kept from startup, so a reload reaches them. The lookup is the configuration's own, with its order of sources (the environment
 * still overrides a secret) and its list syntax, so it answers what the startup mappings
 * ({@code WebhookConfig}, {@code OncepayConfig}) answered for the same properties.
 */
@ApplicationScoped
public class Secrets {
    private static final Pattern NAME = Pattern.compile(DeploymentSettings.NAME_PATTERN);
    private static final Pattern ACCOUNT_SECRETS = Pattern.compile(Pattern.quote(DeploymentSettings.WEBHOOK_SECRETS_PREFIX)
            + "(" + DeploymentSettings.NAME_PATTERN + ")\\.(" + DeploymentSettings.NAME_PATTERN + ")");

    private final SmallRyeConfig config;
    /** Every provider's signing secrets as last read; {@code null} until read, and after a reload. */
    private volatile Map<String, List<SigningSecret>> signing;

    public Secrets(SmallRyeConfig config) {
        this.config = config;
    }

    /**
     * The active signing secrets of webhooks from {@code provider}, each with the account it belongs
     * to ({@code oncepay.webhook.secrets.<provider>.<account>}, several per account during a
     * rotation); empty if none.
     */
    public List<SigningSecret> signingSecrets(String provider) {
        if (provider == null || !NAME.matcher(provider).matches()) {
            return List.of();
        }
        return signingSecrets().getOrDefault(provider, List.of());
    }

    /**
     * Every provider's active signing secrets with their accounts, by provider id: read from the
     * configuration's property names once, not at every delivery, and again after a reload.
     */
    public Map<String, List<SigningSecret>> signingSecrets() {
        Map<String, List<SigningSecret>> read = signing;
        if (read == null) {
            read = readSigningSecrets();
            signing = read;
        }
        return read;
    }

    private Map<String, List<SigningSecret>> readSigningSecrets() {
        Map<String, List<SigningSecret>> byProvider = new TreeMap<>();
        for (String property : signingSecretProperties()) {
            Matcher bound = ACCOUNT_SECRETS.matcher(property);
            if (!bound.matches()) {
                continue;
            }
            List<SigningSecret> secrets = byProvider.computeIfAbsent(bound.group(1), p -> new ArrayList<>());
            config.getOptionalValues(property, String.class).orElse(List.of()).stream()
                    .filter(secret -> secret != null && !secret.isBlank())
                    .forEach(secret -> secrets.add(new SigningSecret(bound.group(2), secret)));
        }
        byProvider.values().removeIf(List::isEmpty);
        byProvider.replaceAll((provider, secrets) -> List.copyOf(secrets));
        return Collections.unmodifiableMap(byProvider);
    }

    /**
     * The properties under {@code oncepay.webhook.secrets.} that name no provider account (the
     * per-provider form {@code oncepay.webhook.secrets.<provider>}, or an account name with a dot):
     * names only, never values.
     */
    public List<String> signingSecretPropertiesWithoutAccount() {
        return signingSecretProperties().stream().filter(p -> !ACCOUNT_SECRETS.matcher(p).matches()).toList();
    }

    /**
     * The names as they are now (a reload may have added or removed some), sorted; environment
     * variables appear under their dotted names through {@code WebhookConfig}'s mapping.
     */
    private List<String> signingSecretProperties() {
        TreeSet<String> names = new TreeSet<>();
        for (String name : config.getLatestPropertyNames()) {
            if (name.startsWith(DeploymentSettings.WEBHOOK_SECRETS_PREFIX)) {
                names.add(name);
            }
        }
        return List.copyOf(names);
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
        try {
            for (ConfigSource source : config.getConfigSources()) {
                if (source instanceof SecretsConfigSource secrets) {
                    return secrets.reload();
                }
            }
            return Set.of();
        } finally {
            signing = null; // read again at the next use, whatever the reload did
        }
    }
}
