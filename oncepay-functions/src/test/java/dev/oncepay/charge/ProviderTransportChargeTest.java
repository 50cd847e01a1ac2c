package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.sim.Faults;
import dev.oncepay.testing.FullListener;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the provider transport's failures mean to a client, through the charge function: a provider
 * that cannot be connected to in time was never sent anything ({@code 503}, nothing stored, the key
 * free), a connection reset after the request may have charged ({@code 202}, not sent again).
 */
@QuarkusTest
@TestProfile(ProviderTransportChargeTest.UnreachableAccount.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ProviderTransportChargeTest extends ChargeTestSupport {
    static final String UNREACHABLE_TENANT = "merchant-unreachable";

    /** The tenant {@value #UNREACHABLE_TENANT} charged through an account whose connects time out. */
    public static class UnreachableAccount implements QuarkusTestProfile {
        /** Open for the test JVM's life: the application's configuration points at it. */
        private static final FullListener UNREACHABLE = FullListener.open();

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "oncepay.provider.accounts.unreachable.provider", "sim",
                    "oncepay.provider.accounts.unreachable.url", "http://127.0.0.1:" + UNREACHABLE.port(),
                    "oncepay.provider.accounts.unreachable.api-key", "sk_unreachable",
                    "oncepay.provider.tenants." + UNREACHABLE_TENANT, "unreachable");
        }
    }

    @Test
    void aProviderNotConnectedToInTimeIs503AndNothingIsStored() {
        tenant = UNREACHABLE_TENANT;
        var before = storedItems();

        ApiResponse answer = post(newKey(), body(100, "EUR", "order_unreachable"));

        assertEquals(503, answer.status(), answer::body);
        assertEquals("https://oncepay.dev/problems/provider-unavailable", answer.json().get("type").asText(), answer::body);
        assertEquals(before, storedItems(), "nothing stored: the key is free for a retry");
    }

    @Test
    void aResetAfterTheRequestIs202AndTheChargeIsNotSentAgain() {
        sim.setFaults(Faults.none().withResetRate(1.0));

        ApiResponse answer = post(newKey(), body(100, "EUR", "order_reset"));

        assertEquals(202, answer.status(), "a reset after the request may have charged: UNKNOWN. " + answer.body());
        assertEquals(1, sim.chargeRequests(), "sent once: neither the transport nor SmallRye sends it again");
    }
}
