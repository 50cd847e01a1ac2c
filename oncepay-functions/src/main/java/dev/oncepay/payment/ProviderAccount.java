package dev.oncepay.payment;

/**
 * Which provider, and which account at that provider, charged a payment (design rule 15). Only
 * facts from that provider account may move the payment; every lookup and re-send goes there.
 *
 * @param provider the provider id, as in {@code /webhooks/{provider}} (the simulator's is {@code sim})
 * @param account the merchant account at that provider
 */
public record ProviderAccount(String provider, String account) {
    public ProviderAccount {
        if (provider == null || provider.isBlank() || account == null || account.isBlank()) {
            throw new IllegalArgumentException("a provider account needs a provider id and an account id");
        }
    }

    @Override
    public String toString() {
        return provider + "/" + account;
    }
}
