package dev.oncepay.events;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/** Reads the endpoints at startup, so a plain-http or malformed one stops the function at deployment, not at its first event. */
@ApplicationScoped
class EndpointsStartupCheck {
    void check(@Observes StartupEvent started, MerchantEndpoints endpoints) {
        endpoints.all();
    }
}
