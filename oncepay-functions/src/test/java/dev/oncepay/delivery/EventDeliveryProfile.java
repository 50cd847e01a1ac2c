package dev.oncepay.delivery;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** The application as the {@code event-delivery} Lambda: the tests deliver SQS events of the event queue to it. */
public class EventDeliveryProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.funqy.export", "event-delivery");
    }
}
