package dev.oncepay.webhook;

import dev.oncepay.provider.webhook.WebhookFormats;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Says at start-up which providers the webhook function accepts, by id and number of active
 * secrets (never the secrets), and warns loudly when there are none, or secrets for a provider
 * oncepay has no webhook format for: such endpoints answer every delivery 404 and the provider's
 * events are lost after its retry window.
 */
@ApplicationScoped
public class WebhookStartupCheck {
    private static final Logger LOG = Logger.getLogger(WebhookStartupCheck.class);

    void check(@Observes StartupEvent start, WebhookConfig config, WebhookFormats formats,
            @ConfigProperty(name = "quarkus.funqy.export", defaultValue = "") String export) {
        if (!"webhook".equals(export)) {
            return;
        }
        Map<String, Integer> providers = new TreeMap<>();
        config.secrets().forEach((provider, secrets) -> {
            long usable = secrets == null ? 0 : secrets.stream().filter(s -> s != null && !s.isBlank()).count();
            if (usable > 0 && formats.forProvider(provider).isEmpty()) {
                LOG.warnf("webhook secrets for provider %s, which has no webhook format: its deliveries are answered 404",
                        provider);
            } else if (usable > 0) {
                providers.put(provider, (int) usable);
            }
        });
        if (providers.isEmpty()) {
            LOG.warn("no webhook secrets configured (oncepay.webhook.secrets.<provider>): every delivery is answered 404");
        } else {
            LOG.infof("webhook providers (active secrets): %s", providers);
        }
    }
}
