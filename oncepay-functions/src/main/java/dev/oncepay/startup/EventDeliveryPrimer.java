package dev.oncepay.startup;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.delivery.DeliveryRepository;
import dev.oncepay.delivery.EndpointHealth;
import dev.oncepay.delivery.EventSigner;
import dev.oncepay.queue.EventDeliveryJob;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * Event delivery's path, read-only: a message body read as the worker reads it, an endpoint's
 * health and a delivery record looked up (of an endpoint no tenant has), and a body signed. No
 * merchant is called and nothing is written.
 */
@ApplicationScoped
class EventDeliveryPrimer implements Primer {
    private final EndpointHealth health;
    private final DeliveryRepository deliveries;

    EventDeliveryPrimer(EndpointHealth health, DeliveryRepository deliveries) {
        this.health = health;
        this.deliveries = deliveries;
    }

    @Override
    public String function() {
        return DeploymentSettings.FUNCTION_EVENT_DELIVERY;
    }

    @Override
    public boolean clientsWait() {
        return false;
    }

    @Override
    public Round prime(SyntheticEvents events) {
        List<String> done = new ArrayList<>();
        EventDeliveryJob job = events.eventDeliveryJob();
        done.add("message read");
        health.state(job.tenant(), job.endpoint());
        done.add("endpoint health read");
        deliveries.find(job.tenant(), job.endpoint(), job.eventId());
        done.add("delivery record looked up");
        EventSigner.header(List.of("priming"), job.body(), 0);
        done.add("body signed");
        return new Round(done, true);
    }
}
