package dev.oncepay.local;

import dev.oncepay.config.DeploymentSettings;
import dev.oncepay.sim.StripeMode;
import dev.oncepay.sim.WebhookTarget;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The provider accounts of the local run, as each function's environment: the default account
 * ({@code oncepay.provider.id}, {@code .url}, {@code .api-key}) on the chosen provider, one more
 * account per other provider that some tenant is charged through
 * ({@code oncepay.provider.accounts.<provider>.*}, {@code oncepay.provider.tenants.<tenant>}), all of
 * them on the simulator unless {@code --provider-url} says otherwise. Secrets are split as in
 * production: API keys go to charge and reconcile only, webhook signing secrets to webhook only.
 */
final class LocalProviders {
    /** The simulator's generic API takes any key. */
    static final String SIM_API_KEY = "local-sim-key";
    /** The JVM reads it in every sandbox (Lambda's Java runtimes too): how a property name with a tenant in it gets there. */
    static final String JAVA_TOOL_OPTIONS = "JAVA_TOOL_OPTIONS";

    private LocalProviders() {
    }

    /**
     * The provider part of {@code function}'s environment. Property names holding a tenant or
     * account name travel as system properties in {@value #JAVA_TOOL_OPTIONS}: environment names
     * cannot tell {@code merchant-b} from {@code merchant.b}; the API keys of those accounts then
     * resolve from plain environment variables.
     *
     * @param providerUrl where every account is reached (the simulator, or what {@code --provider-url} says)
     */
    static Map<String, String> environment(String function, LocalRunOptions options, String providerUrl) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(DeploymentSettings.ENV_PROVIDER_ID, options.provider());
        env.put(DeploymentSettings.ENV_PROVIDER_URL, providerUrl);
        List<String> properties = new java.util.ArrayList<>();
        for (String account : otherAccounts(options)) {
            properties.add("-Doncepay.provider.accounts." + account + ".provider=" + account);
            properties.add("-Doncepay.provider.accounts." + account + ".url=" + providerUrl);
        }
        new TreeMap<>(options.tenantProviders()).forEach((tenant, provider) -> {
            if (!provider.equals(options.provider())) {
                properties.add("-Doncepay.provider.tenants." + tenant + "=" + provider);
            }
        });
        if (!properties.isEmpty()) {
            env.put(JAVA_TOOL_OPTIONS, String.join(" ", properties));
        }
        if (function.equals(DeploymentSettings.FUNCTION_WEBHOOK)) {
            // The internet-facing function reads webhook signing secrets only, never an API key.
            env.put(webhookSecretsVariable(WebhookTarget.DEFAULT_PROVIDER_ID), options.webhookSecret());
            env.put(webhookSecretsVariable(StripeMode.PROVIDER_ID), options.stripeWebhookSecret());
        } else {
            env.put("ONCEPAY_PROVIDER_API_KEY", apiKey(options.provider(), options));
            for (String account : otherAccounts(options)) {
                env.put("ONCEPAY_PROVIDER_ACCOUNTS_" + account.toUpperCase(Locale.ROOT) + "_API_KEY",
                        apiKey(account, options));
            }
        }
        return env;
    }

    /** The accounts beside the default one: one per other provider some tenant uses, named after it. */
    static List<String> otherAccounts(LocalRunOptions options) {
        TreeSet<String> accounts = new TreeSet<>(options.tenantProviders().values());
        accounts.remove(options.provider());
        return List.copyOf(accounts);
    }

    static String apiKey(String provider, LocalRunOptions options) {
        return provider.equals(StripeMode.PROVIDER_ID) ? options.stripeApiKey() : SIM_API_KEY;
    }

    /** {@code oncepay.webhook.secrets.<provider>} as an environment variable (provider ids are plain words). */
    static String webhookSecretsVariable(String provider) {
        return "ONCEPAY_WEBHOOK_SECRETS_" + provider.toUpperCase(Locale.ROOT);
    }

    /** How the banner names the accounts: {@code default stripe; merchant-b -> sim}. */
    static String describe(LocalRunOptions options) {
        StringBuilder s = new StringBuilder("default " + options.provider());
        new TreeMap<>(options.tenantProviders()).forEach((tenant, provider) -> s.append("; ").append(tenant).append(" -> ")
                .append(provider));
        return s.toString();
    }
}
