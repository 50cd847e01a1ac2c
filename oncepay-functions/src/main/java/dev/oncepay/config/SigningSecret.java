package dev.oncepay.config;

/**
 * One active webhook signing secret and the provider account it belongs to: a signature made with
 * it speaks for that account's payments only.
 *
 * @param account the account name at the provider ({@code oncepay.webhook.secrets.<provider>.<account>})
 * @param secret the secret itself; never logged, never in {@link #toString()}
 */
public record SigningSecret(String account, String secret) {
    public SigningSecret {
        if (account == null || account.isBlank() || secret == null || secret.isBlank()) {
            throw new IllegalArgumentException("a signing secret needs an account and a non-blank secret");
        }
    }

    @Override
    public String toString() {
        return "SigningSecret[account=" + account + "]";
    }
}
