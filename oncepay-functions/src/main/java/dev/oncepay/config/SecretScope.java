package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which secrets a function may hold. The internet-facing webhook function verifies signatures
 * and never calls a provider, so it holds only webhook signing secrets; charge and reconcile call
 * providers and hold only their API keys. A function refuses to start with a secret outside its
 * scope, so a misfiled key shows up at deployment, not in a breach.
 */
public enum SecretScope {
    /** The webhook function: {@code oncepay.webhook.secrets.<provider>.<account>}. */
    SIGNING_SECRETS("the webhook function", DeploymentSettings.WEBHOOK_SECRETS_PREFIX + "<provider>.<account>"),
    /** Charge and reconcile: {@code oncepay.provider.api-key}, {@code oncepay.provider.accounts.<name>.api-key}. */
    API_KEYS("the charge and reconcile functions", DeploymentSettings.PROVIDER_API_KEY_PROPERTY + ", "
            + DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + "<account>." + DeploymentSettings.ACCOUNT_API_KEY),
    /** Event delivery: {@code oncepay.events.endpoints.<tenant>.<endpoint>.secrets}. */
    ENDPOINT_SECRETS("the event-delivery function", DeploymentSettings.EVENT_ENDPOINTS_PREFIX + "<tenant>.<endpoint>."
            + DeploymentSettings.ENDPOINT_SECRETS);

    private static final Pattern SIGNING_SECRETS_KEY = Pattern.compile(
            Pattern.quote(DeploymentSettings.WEBHOOK_SECRETS_PREFIX) + DeploymentSettings.NAME_PATTERN + "\\."
                    + DeploymentSettings.NAME_PATTERN);
    private static final Pattern ACCOUNT_API_KEY = Pattern.compile(
            Pattern.quote(DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX) + DeploymentSettings.NAME_PATTERN
                    + Pattern.quote("." + DeploymentSettings.ACCOUNT_API_KEY));

    /** Tenant and endpoint, each quoted or not (a tenant id with {@code @:|} must be quoted). */
    private static final Pattern ENDPOINT_SECRETS_KEY = Pattern.compile(
            Pattern.quote(DeploymentSettings.EVENT_ENDPOINTS_PREFIX) + "(\"" + DeploymentSettings.TENANT_PATTERN + "\"|"
                    + DeploymentSettings.NAME_PATTERN + ")\\.(\"?)" + DeploymentSettings.NAME_PATTERN + "\\2"
                    + Pattern.quote("." + DeploymentSettings.ENDPOINT_SECRETS));

    private final String holders;
    private final String keys;

    SecretScope(String holders, String keys) {
        this.holders = holders;
        this.keys = keys;
    }

    /** The scope of the function named by {@code quarkus.funqy.export}. */
    public static SecretScope ofFunction(String function) {
        return switch (function) {
            case DeploymentSettings.FUNCTION_WEBHOOK -> SIGNING_SECRETS;
            case DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_RECONCILE,
                    DeploymentSettings.FUNCTION_CHARGE_WORKER -> API_KEYS;
            case DeploymentSettings.FUNCTION_EVENT_DELIVERY -> ENDPOINT_SECRETS;
            default -> throw new IllegalArgumentException("function '" + function + "' may hold no secrets");
        };
    }

    /** The scope a property belongs to; empty for a property that is no secret at all. */
    public static Optional<SecretScope> of(String property) {
        if (SIGNING_SECRETS_KEY.matcher(property).matches()) {
            return Optional.of(SIGNING_SECRETS);
        }
        if (property.equals(DeploymentSettings.PROVIDER_API_KEY_PROPERTY) || ACCOUNT_API_KEY.matcher(property).matches()) {
            return Optional.of(API_KEYS);
        }
        if (ENDPOINT_SECRETS_KEY.matcher(property).matches()) {
            return Optional.of(ENDPOINT_SECRETS);
        }
        return Optional.empty();
    }

    /** Who holds secrets of this scope, for error messages. */
    public String holders() {
        return holders;
    }

    /** The property names of this scope, for error messages. */
    public String keys() {
        return keys;
    }
}
