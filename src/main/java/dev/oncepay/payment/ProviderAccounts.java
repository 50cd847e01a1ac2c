package dev.oncepay.payment;

import dev.oncepay.config.OncepayConfig;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The one place that says which provider account charges a tenant's payments and which accounts
 * this deployment's provider client reaches. Today both are the configured
 * {@code oncepay.provider.id} / {@code oncepay.provider.account}; per-tenant accounts change only
 * this class.
 */
@ApplicationScoped
public class ProviderAccounts {
    private final ProviderAccount configured;

    public ProviderAccounts(OncepayConfig config) {
        this.configured = configured(config);
    }

    /**
     * The configured account; also what a payment recorded before payments carried their account
     * reads as, because it was the only one there was.
     */
    public static ProviderAccount configured(OncepayConfig config) {
        return new ProviderAccount(config.provider().id(), config.provider().account());
    }

    /** The account a new payment of {@code tenant} is charged through. */
    public ProviderAccount forTenant(String tenant) {
        return configured;
    }

    /** Whether the provider client of this deployment talks to {@code account}: only then may it ask or charge. */
    public boolean reaches(ProviderAccount account) {
        return configured.equals(account);
    }
}
