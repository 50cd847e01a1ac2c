package dev.oncepay.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The reconcile function as it is deployed (function.zip under AWS's runtime interface client, or
 * the native binary in the native profile): an EventBridge scheduled event through the Lambda
 * Runtime API runs a sweep over every shard of the table and answers its summary.
 */
@QuarkusIntegrationTest
@TestProfile(ReconcileFunctionIT.Deployed.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ReconcileFunctionIT {

    /** The reconcile function's deployment settings: its export and its provider API key. */
    public static class Deployed implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.funqy.export", "reconcile", "oncepay.provider.api-key", "local-sim-key");
        }
    }

    @Test
    void aScheduledEventRunsASweepOverEveryShard() {
        PspSimulator sim = TestEnvironment.simulator();
        int lookups = sim.lookupRequests();
        String eventId = UUID.randomUUID().toString();

        JsonNode summary = LambdaClient.invoke(ReconcileFixture.SCHEDULED_EVENT.formatted(eventId,
                Instant.now().truncatedTo(ChronoUnit.SECONDS)));

        // The event's id and detail-type, read through the event's Jackson binding.
        assertTrue(summary.path("trigger").asText().startsWith(eventId + " (Scheduled Event at "), summary.toString());
        assertEquals(0, summary.path("errors").asInt(-1), "every shard's query answered: " + summary);
        assertEquals(0, summary.path("examined").asInt(-1), "no payment of these tests is due: " + summary);
        assertEquals(lookups, sim.lookupRequests(), "nothing due, no provider lookup");
    }
}
