package dev.oncepay.infra;

import dev.oncepay.contract.DeploymentSettings;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One provider account beside the default one (whose provider and URL are the stack's
 * {@code ProviderId} and {@code ProviderUrl} parameters): its provider id, API base URL, its two
 * secrets and how many of its queued charges run at once. Each secret is an existing one (a
 * complete Secrets Manager ARN) or, when not given, created by the stack.
 *
 * @param name             the account name ({@code oncepay.provider.accounts.<name>.*}, {@code oncepay.provider.tenants.<t>=<name>})
 * @param provider         its provider id ({@code sim}, {@code stripe}, ...)
 * @param url              its provider's API base URL
 * @param apiKeySecretArn  the secret holding {@code oncepay.provider.accounts.<name>.api-key} (charge, the charge worker and reconcile read it)
 * @param signingSecretArn the secret holding {@code oncepay.webhook.secrets.<provider>.<name>} (the webhook function reads it)
 * @param lookupLag        how long its lookups may trail its charges (ISO-8601), when not the provider's default
 * @param queueConcurrency charges in flight from its charge queue, fleet-wide: the event-source mapping's maximum concurrency
 */
public record ProviderAccountSettings(
        String name, String provider, String url, Optional<String> apiKeySecretArn, Optional<String> signingSecretArn,
        Optional<String> lookupLag, int queueConcurrency) {
    private static final Pattern NAME = Pattern.compile(DeploymentSettings.NAME_PATTERN);
    /** SQS's longest queue name. */
    static final int MAX_QUEUE_NAME_LENGTH = 80;
    /** The event-source mapping's range of maximum concurrency. */
    static final int MIN_QUEUE_CONCURRENCY = 2;
    static final int MAX_QUEUE_CONCURRENCY = 1000;
    /** {@code arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<6 characters>}. */
    private static final Pattern SECRET_ARN = Pattern.compile("arn:[a-z-]+:secretsmanager:[a-z0-9-]+:\\d{12}:secret:.+-[A-Za-z0-9]{6}");

    public ProviderAccountSettings {
        String what = OncepaySettings.PREFIX + "accounts: account '" + name + "'";
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + ": the name must match " + DeploymentSettings.NAME_PATTERN);
        }
        // The account's queues are named after it, and SQS refuses longer names.
        if (DeploymentSettings.chargeDeadLetterQueueName(name).length() > MAX_QUEUE_NAME_LENGTH) {
            throw new IllegalArgumentException(what + ": the name is too long for its dead-letter queue's name, "
                    + DeploymentSettings.chargeDeadLetterQueueName(name) + " (SQS allows " + MAX_QUEUE_NAME_LENGTH
                    + " characters)");
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
        requireQueueConcurrency(what + ": queueConcurrency", queueConcurrency);
    }

    /** Within the range that an SQS event-source mapping's maximum concurrency allows. */
    static void requireQueueConcurrency(String what, int concurrency) {
        if (concurrency < MIN_QUEUE_CONCURRENCY || concurrency > MAX_QUEUE_CONCURRENCY) {
            throw new IllegalArgumentException(what + " must be within " + MIN_QUEUE_CONCURRENCY + ".." + MAX_QUEUE_CONCURRENCY
                    + " (the maximum concurrency of an SQS event-source mapping), not " + concurrency);
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
