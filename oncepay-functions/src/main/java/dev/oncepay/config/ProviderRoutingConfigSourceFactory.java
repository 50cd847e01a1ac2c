package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.PropertiesConfigSource;
import java.net.URI;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Plain provider routing for charge, the charge worker and reconcile, and the order guard's and the
 * queued charges' tenants for charge, from {@value DeploymentSettings#ENV_PROVIDER_ROUTING}: a JSON
 * object of
 *
 * <pre>
 * { "oncepay.provider.tenants.merchant-a": "stripe-eu",
 *   "oncepay.provider.accounts.stripe-eu.provider": "stripe",
 *   "oncepay.provider.accounts.stripe-eu.url": "https://api.stripe.com",
 *   "oncepay.provider.accounts.stripe-eu.queue-url": "https://sqs.eu-west-1.amazonaws.com/…/oncepay-charges-stripe-eu",
 *   "oncepay.orders.tenants.merchant-a.once-per-reference": "false",
 *   "oncepay.queue.tenants.merchant-a.respond-async": "true" }
 * </pre>
 *
 * One variable rather than one per property because Lambda's variable names cannot spell tenant
 * ids and account names as the properties need them (case, dashes). Nothing else may appear in
 * it, API keys least of all: those come only from secrets ({@link SecretsManagerConfigSourceFactory}).
 * Same ordinal as the secrets: above {@code application.properties}, below the environment.
 * Errors name the key, not the value.
 */
public class ProviderRoutingConfigSourceFactory implements ConfigSourceFactory {
    static final String SOURCE_NAME = "oncepay-provider-routing";
    private static final Pattern NAME = Pattern.compile(DeploymentSettings.NAME_PATTERN);
    private static final Pattern TENANT = Pattern.compile(DeploymentSettings.TENANT_PATTERN);

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        return SecretsManagerConfigSourceFactory.value(context, DeploymentSettings.ENV_PROVIDER_ROUTING)
                .<Iterable<ConfigSource>>map(json -> {
                    try {
                        return List.of(new PropertiesConfigSource(fromJson(json), SOURCE_NAME,
                                SecretsManagerConfigSourceFactory.ORDINAL));
                    } catch (IllegalArgumentException refused) {
                        throw new IllegalStateException(DeploymentSettings.ENV_PROVIDER_ROUTING + ": " + refused.getMessage());
                    }
                })
                .orElse(List.of());
    }

    /** The routing properties in {@code json}, values escaped against expression expansion. */
    static Map<String, String> fromJson(String json) {
        Map<String, String> properties = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = SecretProperties.object(json, "the provider routing").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> entry = it.next();
            String name = entry.getKey();
            String value = text(name, entry.getValue());
            if (SecretScope.of(name).isPresent()) {
                throw new IllegalArgumentException("'" + name + "' is a secret: it belongs in a Secrets Manager secret");
            }
            if (name.startsWith(DeploymentSettings.PROVIDER_TENANTS_PREFIX)) {
                require(TENANT.matcher(name.substring(DeploymentSettings.PROVIDER_TENANTS_PREFIX.length())).matches(),
                        name, "does not end in a tenant id");
                require(NAME.matcher(value).matches(), name, "must name an account (" + DeploymentSettings.NAME_PATTERN + ")");
            } else if (name.startsWith(DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX)) {
                String rest = name.substring(DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX.length());
                int dot = rest.lastIndexOf('.');
                require(dot > 0 && NAME.matcher(rest.substring(0, dot)).matches(), name, "does not name an account");
                String setting = rest.substring(dot + 1);
                if (setting.equals(DeploymentSettings.ACCOUNT_PROVIDER)) {
                    require(NAME.matcher(value).matches(), name, "must be a provider id (" + DeploymentSettings.NAME_PATTERN + ")");
                } else if (setting.equals(DeploymentSettings.ACCOUNT_URL)) {
                    require(isHttpUrl(value), name, "must be an absolute http(s) URL");
                } else if (setting.equals(DeploymentSettings.ACCOUNT_LOOKUP_LAG)) {
                    require(isDuration(value), name, "must be a duration that is not negative (e.g. 15M or PT15M)");
                } else if (setting.equals(DeploymentSettings.ACCOUNT_QUEUE_URL)) {
                    require(isHttpUrl(value), name, "must be an absolute http(s) URL");
                } else {
                    throw new IllegalArgumentException("'" + name + "' is not an account's "
                            + DeploymentSettings.ACCOUNT_PROVIDER + ", " + DeploymentSettings.ACCOUNT_URL + ", "
                            + DeploymentSettings.ACCOUNT_LOOKUP_LAG + " or " + DeploymentSettings.ACCOUNT_QUEUE_URL);
                }
            } else if (name.equals(DeploymentSettings.ORDERS_ONCE_PER_REFERENCE) || name.equals(DeploymentSettings.QUEUE_RESPOND_ASYNC)) {
                requireBoolean(name, value);
            } else if (name.startsWith(DeploymentSettings.ORDERS_TENANTS_PREFIX)) {
                requireTenantSetting(name, DeploymentSettings.ORDERS_TENANTS_PREFIX,
                        DeploymentSettings.ORDERS_TENANT_ONCE_PER_REFERENCE, DeploymentSettings.orderGuardProperty("<tenant>"));
                requireBoolean(name, value);
            } else if (name.startsWith(DeploymentSettings.QUEUE_TENANTS_PREFIX)) {
                requireTenantSetting(name, DeploymentSettings.QUEUE_TENANTS_PREFIX,
                        DeploymentSettings.QUEUE_TENANT_RESPOND_ASYNC, DeploymentSettings.respondAsyncProperty("<tenant>"));
                requireBoolean(name, value);
            } else {
                throw new IllegalArgumentException("'" + name + "' is not provider routing, the order guard or queued"
                        + " charges (allowed: " + DeploymentSettings.PROVIDER_TENANTS_PREFIX + "<tenant>, "
                        + DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + "<account>.{" + DeploymentSettings.ACCOUNT_PROVIDER
                        + "," + DeploymentSettings.ACCOUNT_URL + "," + DeploymentSettings.ACCOUNT_LOOKUP_LAG + ","
                        + DeploymentSettings.ACCOUNT_QUEUE_URL + "}, " + DeploymentSettings.ORDERS_ONCE_PER_REFERENCE
                        + ", " + DeploymentSettings.orderGuardProperty("<tenant>") + ", "
                        + DeploymentSettings.QUEUE_RESPOND_ASYNC + ", " + DeploymentSettings.respondAsyncProperty("<tenant>") + ")");
            }
            properties.put(name, SecretProperties.escape(value));
        }
        return properties;
    }

    /** {@code name} is {@code prefix<tenant>.setting}. */
    private static void requireTenantSetting(String name, String prefix, String setting, String shape) {
        String rest = name.substring(prefix.length());
        int dot = rest.lastIndexOf('.');
        require(dot > 0 && TENANT.matcher(rest.substring(0, dot)).matches() && rest.substring(dot + 1).equals(setting),
                name, "is not " + shape);
    }

    private static String text(String name, JsonNode node) {
        require(node.isTextual() && !node.textValue().isBlank(), name, "must be a non-empty string");
        return node.textValue();
    }

    private static boolean isDuration(String value) {
        try {
            Duration duration = DurationConverter.parseDuration(value);
            return duration != null && !duration.isNegative();
        } catch (IllegalArgumentException | DateTimeParseException notADuration) {
            return false;
        }
    }

    private static boolean isHttpUrl(String value) {
        try {
            URI uri = URI.create(value);
            return (uri.getScheme().equals("https") || uri.getScheme().equals("http")) && uri.getHost() != null;
        } catch (RuntimeException notAUrl) {
            return false;
        }
    }

    /** The two words only: SmallRye reads a word it does not know as {@code false}, so a typo would unguard orders. */
    private static void requireBoolean(String name, String value) {
        require(value.equals("true") || value.equals("false"), name, "must be true or false");
    }

    private static void require(boolean condition, String name, String problem) {
        if (!condition) {
            throw new IllegalArgumentException("'" + name + "' " + problem);
        }
    }
}
