package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.contract.Table;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HttpApiEvents;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The charge function as it is deployed: the packaged artifact (function.zip under AWS's runtime
 * interface client, or the native binary in the native profile) polls the Lambda Runtime API and
 * takes an API Gateway HTTP API event, against dynalite and the PSP simulator.
 */
@QuarkusIntegrationTest
@TestProfile(ChargeFunctionIT.Deployed.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ChargeFunctionIT {

    /** The charge function's deployment settings: its export and its provider API key. */
    public static class Deployed implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.funqy.export", "charge", "oncepay.provider.api-key", "local-sim-key");
        }
    }

    @Test
    void aPaymentIsChargedOnceAndItsReplayComesFromTheStore() {
        PspSimulator sim = TestEnvironment.simulator();
        String tenant = "merchant-" + UUID.randomUUID().toString().substring(0, 8);
        HttpApiEvents request = HttpApiEvents.postPayment(tenant, UUID.randomUUID().toString(),
                "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_it\"}");

        ApiResponse first = LambdaClient.call(request);
        assertEquals(201, first.status(), first.body());
        String paymentId = first.json().get("id").asText();
        assertEquals("succeeded", first.json().get("status").asText());
        assertEquals("SUCCEEDED", StoredItems.paymentItem(paymentId).orElseThrow().get(Table.STATUS).s());
        assertEquals(1, sim.ledger().stream().filter(c -> c.reference().equals(paymentId)).count(), "one charge at the provider");

        ApiResponse replay = LambdaClient.call(request);
        assertEquals(201, replay.status(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.body(), replay.body());
        assertEquals(1, sim.ledger().stream().filter(c -> c.reference().equals(paymentId)).count(), "the replay charged nothing");
    }
}
