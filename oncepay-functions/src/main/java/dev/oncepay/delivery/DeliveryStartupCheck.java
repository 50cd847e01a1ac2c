package dev.oncepay.delivery;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.events.MerchantEndpoint;
import dev.oncepay.events.MerchantEndpoints;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Event delivery refuses to start while an endpoint has no signing secret: an unsigned delivery is
 * one no merchant can trust, so the deployment fails instead of every delivery.
 */
@ApplicationScoped
class DeliveryStartupCheck {
    void check(@Observes StartupEvent started, MerchantEndpoints endpoints,
            @ConfigProperty(name = "quarkus.funqy.export", defaultValue = "charge") String function) {
        if (!DeploymentSettings.FUNCTION_EVENT_DELIVERY.equals(function)) {
            return;
        }
        requireSecrets(endpoints.all());
    }

    /** @throws IllegalStateException naming the secrets property of the first endpoint without one */
    static void requireSecrets(List<MerchantEndpoint> endpoints) {
        for (MerchantEndpoint endpoint : endpoints) {
            if (endpoint.secrets().isEmpty()) {
                throw new IllegalStateException(DeploymentSettings.endpointProperty(endpoint.tenant(), endpoint.id(),
                        DeploymentSettings.ENDPOINT_SECRETS) + " is missing: event delivery signs every delivery");
            }
        }
    }
}
