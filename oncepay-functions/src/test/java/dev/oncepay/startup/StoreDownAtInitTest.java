package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Priming at init with the store unreachable (nothing listens where the table should be): the
 * function starts anyway, unprimed where the store was needed, and answers as a function with a
 * sick store does.
 */
@QuarkusTest
@TestProfile(StoreDownAtInitTest.StoreDownPrimingAtInit.class)
class StoreDownAtInitTest {

    public static class StoreDownPrimingAtInit implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "oncepay.priming.at-init", "true",
                    "quarkus.dynamodb.endpoint-override", "http://127.0.0.1:" + closedPort(),
                    "quarkus.dynamodb.aws.region", "us-east-1",
                    "quarkus.dynamodb.aws.credentials.type", "static",
                    "quarkus.dynamodb.aws.credentials.static-provider.access-key-id", "test",
                    "quarkus.dynamodb.aws.credentials.static-provider.secret-access-key", "test",
                    "oncepay.table", "oncepay-nowhere");
        }

        private static int closedPort() {
            try (ServerSocket socket = new ServerSocket(0)) {
                return socket.getLocalPort(); // free, and closed again: connections are refused
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Inject
    SnapStartHooks hooks;
    @Inject
    Priming priming;

    @Test
    void theFunctionStartsAndAnswersWithoutItsStore() {
        assertTrue(hooks.registered(), "started, hooks registered");

        List<String> done = priming.run("test");
        assertEquals("GET /payments/{id} 503", done.get(0));
        assertEquals("breaker not read, provider path not primed (store unavailable)", done.get(done.size() - 1));

        LambdaClient.ApiResponse answer = LambdaClient.call(HttpApiEvents.getPayment("merchant-a",
                ChargePrimer.NEVER_ISSUED_ID));
        assertEquals(503, answer.status());
    }
}
