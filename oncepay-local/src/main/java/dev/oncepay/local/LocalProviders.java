package dev.oncepay.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.sim.StripeMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The provider accounts of the local run, as each function's environment: the default account
 * ({@code oncepay.provider.id}, {@code .url}, {@code .api-key}) on the chosen provider, and one more
 * account per other provider that some tenant is charged through, named after that provider
 * ({@code oncepay.provider.accounts.<provider>.*}, {@code oncepay.provider.tenants.<tenant>}), all on
 * the simulator unless {@code --provider-url} says otherwise. As {@code infra/} deploys them:
 * routing and API keys go to charge, charge-worker and reconcile only (event-delivery gets neither), each
 * account's webhook signing secret ({@code oncepay.webhook.secrets.<provider>.<account>}) to webhook only, each account's charge queue
 * to charge and charge-worker (the default account's as {@code oncepay.provider.queue-url}, the others'
 * as {@code oncepay.provider.accounts.<account>.queue-url}), and the unguarded tenants ({@code
 * oncepay.orders.tenants.<tenant>.once-per-reference=false}) and the tenants queued by default ({@code
 * oncepay.queue.tenants.<tenant>.respond-async=true}) to charge only, in the routing's variable.
 */
final class LocalProviders {
    /** The simulator's generic API takes any key. */
    static final String SIM_API_KEY = "local-sim-key";
    /**
     * A second Stripe account, with an API key and a signing secret of its own (the first account's
     * with {@code _2}): the simulator signs its PaymentIntents' events with its secret, so the local
     * run shows that one account's events never move another account's payments.
     */
    static final String SECOND_STRIPE_ACCOUNT = "stripe2";
    private static final String SECOND_ACCOUNT_SUFFIX = "_2";
    private static final ObjectMapper JSON = new ObjectMapper();

    private LocalProviders() {
    }

    /**
     * The provider part of {@code function}'s environment. The other accounts' API keys are plain
     * variables ({@code ONCEPAY_PROVIDER_ACCOUNTS_STRIPE_API_KEY}): the routing names the account,
     * so the variable resolves to {@code oncepay.provider.accounts.stripe.api-key}.
     *
     * @param providerUrl where every account is reached (the simulator, or what {@code --provider-url} says)
     * @param queueUrls each account's charge queue URL, by account name
     */
    static Map<String, String> environment(String function, LocalRunOptions options, String providerUrl,
            Map<String, String> queueUrls) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(DeploymentSettings.ENV_PROVIDER_ID, options.provider());
        env.put(DeploymentSettings.ENV_PROVIDER_URL, providerUrl);
        if (function.equals(DeploymentSettings.FUNCTION_WEBHOOK)) {
            // The internet-facing function reads webhook signing secrets only, never an API key: each
            // account's own, so an event moves only the payments of the account whose secret signed it.
            env.put(webhookSecretsVariable(options.provider(), DeploymentSettings.DEFAULT_ACCOUNT),
                    webhookSecret(options.provider(), options));
            for (String account : otherAccounts(options)) {
                env.put(webhookSecretsVariable(providerOf(account), account), webhookSecret(account, options));
            }
            return env;
        }
        if (function.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
            // It calls merchants, never a provider: no key, no routing.
            return env;
        }
        env.put("ONCEPAY_PROVIDER_API_KEY", apiKey(options.provider(), options));
        boolean queues = function.equals(DeploymentSettings.FUNCTION_CHARGE)
                || function.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER);
        if (queues) {
            env.put(DeploymentSettings.ENV_PROVIDER_QUEUE_URL, queueUrls.get(DeploymentSettings.DEFAULT_ACCOUNT));
        }
        ObjectNode routing = JSON.createObjectNode();
        for (String account : otherAccounts(options)) {
            routing.put(DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + account + "." + DeploymentSettings.ACCOUNT_PROVIDER,
                    providerOf(account));
            routing.put(DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + account + "." + DeploymentSettings.ACCOUNT_URL,
                    providerUrl);
            if (queues) {
                routing.put(DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + account + "." + DeploymentSettings.ACCOUNT_QUEUE_URL,
                        queueUrls.get(account));
            }
            env.put("ONCEPAY_PROVIDER_ACCOUNTS_" + account.toUpperCase(Locale.ROOT) + "_API_KEY", apiKey(account, options));
        }
        new TreeMap<>(options.tenantProviders()).forEach((tenant, provider) -> {
            if (!provider.equals(options.provider())) {
                routing.put(DeploymentSettings.PROVIDER_TENANTS_PREFIX + tenant, provider);
            }
        });
        if (function.equals(DeploymentSettings.FUNCTION_CHARGE)) {
            options.unguardedTenants().forEach(tenant -> routing.put(DeploymentSettings.orderGuardProperty(tenant), "false"));
            options.respondAsyncTenants().forEach(tenant -> routing.put(DeploymentSettings.respondAsyncProperty(tenant), "true"));
        }
        if (!routing.isEmpty()) {
            // Charge, charge-worker and reconcile read it from one JSON variable, as deployed: variable names cannot spell tenants.
            env.put(DeploymentSettings.ENV_PROVIDER_ROUTING, routing.toString());
        }
        return env;
    }

    /**
     * The accounts beside the default one: one per other provider some tenant uses, named after it,
     * and {@link #SECOND_STRIPE_ACCOUNT} if a tenant uses it.
     */
    static List<String> otherAccounts(LocalRunOptions options) {
        return otherAccounts(options.provider(), options.tenantProviders());
    }

    /** The accounts beside the default one of {@code provider}, for {@code tenantProviders} (tenant → account). */
    static List<String> otherAccounts(String provider, Map<String, String> tenantProviders) {
        TreeSet<String> accounts = new TreeSet<>(tenantProviders.values());
        accounts.remove(provider);
        return List.copyOf(accounts);
    }

    /** Every account: the default one, then the others. */
    static List<String> accounts(LocalRunOptions options) {
        List<String> accounts = new ArrayList<>();
        accounts.add(DeploymentSettings.DEFAULT_ACCOUNT);
        accounts.addAll(otherAccounts(options));
        return accounts;
    }

    /** The provider of a local account: accounts are named after their provider, the second Stripe one aside. */
    static String providerOf(String account) {
        return account.equals(SECOND_STRIPE_ACCOUNT) ? StripeMode.PROVIDER_ID : account;
    }

    /** The API key of {@code account} (a provider id names its account). */
    static String apiKey(String account, LocalRunOptions options) {
        if (account.equals(SECOND_STRIPE_ACCOUNT)) {
            return options.stripeApiKey() + SECOND_ACCOUNT_SUFFIX;
        }
        return account.equals(StripeMode.PROVIDER_ID) ? options.stripeApiKey() : SIM_API_KEY;
    }

    /** The secret the simulator signs the events of {@code account} with (a provider id names its account). */
    static String webhookSecret(String account, LocalRunOptions options) {
        if (account.equals(SECOND_STRIPE_ACCOUNT)) {
            return options.stripeWebhookSecret() + SECOND_ACCOUNT_SUFFIX;
        }
        return account.equals(StripeMode.PROVIDER_ID) ? options.stripeWebhookSecret() : options.webhookSecret();
    }

    /**
     * {@code oncepay.webhook.secrets.<provider>.<account>} as an environment variable: the local
     * run's provider ids and account names are plain words, which a variable name spells exactly.
     */
    static String webhookSecretsVariable(String provider, String account) {
        return "ONCEPAY_WEBHOOK_SECRETS_" + provider.toUpperCase(Locale.ROOT) + "_" + account.toUpperCase(Locale.ROOT);
    }

    /** How the banner names the accounts: {@code default stripe; merchant-b -> sim}. */
    static String describe(LocalRunOptions options) {
        StringBuilder s = new StringBuilder("default " + options.provider());
        new TreeMap<>(options.tenantProviders()).forEach((tenant, provider) -> s.append("; ").append(tenant).append(" -> ")
                .append(provider));
        return s.toString();
    }
}
