package dev.oncepay.infra;

import dev.oncepay.contract.DeploymentSettings;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One provider account beside the default one (whose provider and URL are the stack's
 * {@code ProviderId} and {@code ProviderUrl} parameters): its provider id, API base URL, and its
 * two secrets. Each secret is an existing one (a complete Secrets Manager ARN) or, when not given,
 * created by the stack.
 *
 * @param name             the account name ({@code oncepay.provider.accounts.<name>.*}, {@code oncepay.provider.tenants.<t>=<name>})
 * @param provider         its provider id ({@code sim}, {@code stripe}, ...)
 * @param url              its provider's API base URL
 * @param apiKeySecretArn  the secret holding {@code oncepay.provider.accounts.<name>.api-key} (charge and reconcile read it)
 * @param signingSecretArn the secret holding {@code oncepay.webhook.secrets.<provider>.<name>} (the webhook function reads it)
 */
public record ProviderAccountSettings(
        String name, String provider, String url, Optional<String> apiKeySecretArn, Optional<String> signingSecretArn,
        Optional<String> lookupLag) {
    private static final Pattern NAME = Pattern.compile(DeploymentSettings.NAME_PATTERN);
    /** {@code arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<6 characters>}. */
    private static final Pattern SECRET_ARN = Pattern.compile("arn:[a-z-]+:secretsmanager:[a-z0-9-]+:\\d{12}:secret:.+-[A-Za-z0-9]{6}");

    public ProviderAccountSettings {
        String what = OncepaySettings.PREFIX + "accounts: account '" + name + "'";
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + ": the name must match " + DeploymentSettings.NAME_PATTERN);
        }
        if (name.equals(DeploymentSettings.DEFAULT_ACCOUNT)) {
            throw new IllegalArgumentException(what + ": '" + DeploymentSettings.DEFAULT_ACCOUNT
                    + "' is the default account, set by the ProviderId and ProviderUrl parameters");
        }
        if (provider == null || !NAME.matcher(provider).matches()) {
            throw new IllegalArgumentException(what + ": provider must match " + DeploymentSettings.NAME_PATTERN);
        }
        if (url == null || !url.matches("https://\\S+")) {
            throw new IllegalArgumentException(what + ": url must be an https:// URL");
        }
        requireSecretArn(what + ": apiKeySecretArn", apiKeySecretArn);
        requireSecretArn(what + ": signingSecretArn", signingSecretArn);
        if (lookupLag.isPresent() && !isLookupLag(lookupLag.get())) {
            throw new IllegalArgumentException(what + ": lookupLag must be an ISO-8601 duration that is not negative"
                    + " (e.g. PT15M)");
        }
    }

    /** How long the account's lookups may trail its charges, as the application reads it (ISO-8601). */
    private static boolean isLookupLag(String text) {
        try {
            return !java.time.Duration.parse(text).isNegative();
        } catch (java.time.format.DateTimeParseException notADuration) {
            return false;
        }
    }

    /** A complete secret ARN (with its random suffix), so IAM can name exactly that secret. */
    static void requireSecretArn(String what, Optional<String> arn) {
        if (arn.isPresent() && !SECRET_ARN.matcher(arn.get()).matches()) {
            throw new IllegalArgumentException(what + " must be a complete Secrets Manager secret ARN (ending in -XXXXXX)");
        }
    }
}
