package dev.oncepay.webhook;

import dev.oncepay.config.Secrets;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.config.SigningSecret;
import dev.oncepay.provider.webhook.WebhookFormats;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Says at start-up which provider accounts the webhook function accepts events from, by name and
 * number of active secrets (never the secrets), and warns loudly when there are none, or secrets
 * for a provider oncepay has no webhook format for: such endpoints answer every delivery 404 and
 * the provider's events are lost after its retry window.
 *
 * <p>It refuses to start on a signing secret that names no account ({@code oncepay.webhook.secrets.<provider>})
 * and on one secret given to two accounts of a provider: either would leave open which account's
 * payments an event may move, and guessing (all accounts, or the default one) would apply a fact to
 * a payment of another account or acknowledge and drop the events of every other account. A failed
 * start answers deliveries 5xx, so the provider keeps retrying until the configuration is fixed.
 */
@ApplicationScoped
public class WebhookStartupCheck {
    private static final Logger LOG = Logger.getLogger(WebhookStartupCheck.class);

    void check(@Observes StartupEvent start, Secrets secrets, WebhookFormats formats,
            @ConfigProperty(name = "quarkus.funqy.export", defaultValue = "") String export) {
        if (!DeploymentSettings.FUNCTION_WEBHOOK.equals(export)) {
            return;
        }
        check(secrets, formats);
    }

    /** @throws IllegalStateException for secrets that name no account, or one secret of two accounts */
    static void check(Secrets secrets, WebhookFormats formats) {
        List<String> withoutAccount = secrets.signingSecretPropertiesWithoutAccount();
        if (!withoutAccount.isEmpty()) {
            throw new IllegalStateException("webhook signing secrets " + withoutAccount + " name no provider account:"
                    + " each secret belongs to one account, " + DeploymentSettings.WEBHOOK_SECRETS_PREFIX
                    + "<provider>.<account>=current,previous (an environment variable cannot spell an account name"
                    + " with a dash; use a secret or a property); see docs/operations.md");
        }
        Map<String, Integer> accounts = new TreeMap<>();
        secrets.signingSecrets().forEach((provider, active) -> {
            if (formats.forProvider(provider).isEmpty()) {
                LOG.warnf("webhook secrets for provider %s, which has no webhook format: its deliveries are answered 404",
                        provider);
                return;
            }
            Map<String, String> ownerOfSecret = new HashMap<>();
            for (SigningSecret secret : active) {
                String owner = ownerOfSecret.putIfAbsent(secret.secret(), secret.account());
                if (owner != null && !owner.equals(secret.account())) {
                    throw new IllegalStateException("webhook accounts " + provider + "/" + owner + " and " + provider + "/"
                            + secret.account() + " share a signing secret: an event it signs could be either's");
                }
                accounts.merge(provider + "/" + secret.account(), 1, Integer::sum);
            }
        });
        if (accounts.isEmpty()) {
            LOG.warn("no webhook secrets configured (" + DeploymentSettings.WEBHOOK_SECRETS_PREFIX
                    + "<provider>.<account>): every delivery is answered 404");
        } else {
            LOG.infof("webhook provider accounts (active secrets): %s", accounts);
        }
    }
}
