package dev.oncepay.provider;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.config.ProviderConfig;
import dev.oncepay.config.Secrets;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.AccountEndpoint;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The one place that says which provider account charges a tenant's payments, and where and as
 * whom each account is called. From configuration: the default account ({@code oncepay.provider.id},
 * {@code .account}, {@code .url}, {@code .api-key}), more accounts ({@code oncepay.provider.accounts.<name>.*})
 * and tenant bindings ({@code oncepay.provider.tenants.<tenant>=<name>}). Account names are unique
 * across providers. A binding to an unknown account or an account of an unknown provider stops
 * startup: charging such a tenant through the default account instead would move money through
 * the wrong merchant account.
 */
@ApplicationScoped
public class ProviderAccounts {
    private final ProviderAccount defaultAccount;
    private final Map<String, ProviderAccount> byName = new HashMap<>();
    private final Map<ProviderAccount, Settings> settings = new HashMap<>();
    private final Map<String, ProviderAccount> tenants = new HashMap<>();

    /**
     * Where an account is called, the property that holds its API key, whether that held one at
     * startup (absent where this function holds none: the webhook function), how long its
     * lookups may trail its charges, and its charge queue (absent: its charges are never queued).
     */
    private record Settings(URI url, String apiKeyProperty, Optional<String> apiKey, Duration lookupLag,
            Optional<String> queueUrl) {
        @Override
        public String toString() {
            return url + (apiKey.isPresent() ? " (API key set)" : " (no API key)"); // never the key
        }
    }

    /** The keys of now: a SnapStart restore reloads the secrets that hold them. */
    private final Secrets secrets;

    public ProviderAccounts(OncepayConfig config, ProviderAdapters adapters, Secrets secrets) {
        ProviderConfig provider = config.provider();
        this.secrets = secrets;
        this.defaultAccount = configured(config);
        add(provider.account(), defaultAccount, provider.url(), DeploymentSettings.PROVIDER_API_KEY_PROPERTY,
                provider.apiKey(), provider.lookupLag(), provider.queueUrl(), adapters);
        new TreeMap<>(provider.accounts()).forEach((name, account) -> {
            if (byName.containsKey(name)) {
                throw new IllegalStateException("provider account " + name + " is configured twice (also as the"
                        + " default account oncepay.provider.account)");
            }
            add(name, new ProviderAccount(account.provider(), name), account.url(), DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX
                    + name + "." + DeploymentSettings.ACCOUNT_API_KEY, account.apiKey(), account.lookupLag(),
                    account.queueUrl(), adapters);
        });
        provider.tenants().forEach((tenant, name) -> {
            ProviderAccount account = byName.get(name);
            if (account == null) {
                throw new IllegalStateException("oncepay.provider.tenants." + tenant + " names provider account '"
                        + name + "', which is not configured; known: " + new TreeMap<>(byName).keySet());
            }
            tenants.put(tenant, account);
        });
    }

    private void add(String name, ProviderAccount account, String url, String apiKeyProperty, Optional<String> apiKey,
            Optional<Duration> lookupLag, Optional<String> queueUrl, ProviderAdapters adapters) {
        if (!adapters.knows(account.provider())) {
            throw new IllegalStateException("provider account " + name + " names provider '" + account.provider()
                    + "', which oncepay has no adapter for; known: " + adapters.ids());
        }
        if (lookupLag.isPresent() && lookupLag.get().isNegative()) {
            throw new IllegalStateException("provider account " + name + " has a negative lookup lag " + lookupLag.get());
        }
        byName.put(name, account);
        settings.put(account, new Settings(URI.create(url), apiKeyProperty, apiKey.filter(k -> !k.isBlank()),
                lookupLag.orElseGet(() -> adapters.of(account.provider()).defaultLookupLag()),
                queueUrl.filter(u -> !u.isBlank())));
    }

    private static ProviderAccount configured(OncepayConfig config) {
        return new ProviderAccount(config.provider().id(), config.provider().account());
    }

    /** The account a new payment of {@code tenant} is charged through. */
    public ProviderAccount forTenant(String tenant) {
        return tenants.getOrDefault(tenant, defaultAccount);
    }

    /** Whether this deployment is configured to call {@code account}: only then may it ask or charge there. */
    public boolean reaches(ProviderAccount account) {
        return settings.containsKey(account);
    }

    /**
     * How long after a charge was sent to {@code account} its lookups may still miss it: the
     * account's {@code lookup-lag}, else its provider's default.
     *
     * @throws IllegalStateException if the account is not configured
     */
    public Duration lookupLag(ProviderAccount account) {
        Settings s = settings.get(account);
        if (s == null) {
            throw new IllegalStateException("provider account " + account + " is not configured here");
        }
        return s.lookupLag();
    }

    /**
     * Where and as whom {@code account} is called.
     *
     * @throws IllegalStateException if the account is not configured or this function holds no key for it
     */
    public AccountEndpoint endpoint(ProviderAccount account) {
        Settings s = settings.get(account);
        if (s == null) {
            throw new IllegalStateException("provider account " + account + " is not configured here");
        }
        return new AccountEndpoint(account, s.url(), secrets.apiKey(s.apiKeyProperty()).orElseThrow(
                () -> new IllegalStateException("no API key configured for provider account " + account)));
    }

    /** The charge queue of {@code account}; empty if it has none (or is not configured here). */
    public Optional<String> queueUrl(ProviderAccount account) {
        Settings s = settings.get(account);
        return s == null ? Optional.empty() : s.queueUrl();
    }

    /** Every account this deployment is configured to call, with its base URL. */
    public Map<ProviderAccount, URI> urls() {
        Map<ProviderAccount, URI> urls = new HashMap<>();
        settings.forEach((account, s) -> urls.put(account, s.url()));
        return urls;
    }

    /** The configured accounts without an API key (never the keys themselves). */
    public List<ProviderAccount> withoutApiKey() {
        return settings.entrySet().stream().filter(e -> e.getValue().apiKey().isEmpty()).map(Map.Entry::getKey)
                .sorted(java.util.Comparator.comparing(ProviderAccount::toString)).toList();
    }
}
