package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.FleetBreakers.Counted;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * A provider that stops answering, through the charge function: its calls hang until the read
 * timeout, longer than the breaker's cache period. The successes the sandbox counted before them
 * go to the second they happened in (or nowhere, once it left the window), not to the timeouts'
 * second, so they do not thin out the timeouts' failures.
 */
@QuarkusTest
@TestProfile(ProductionBreakerCacheProfile.class)
class HungProviderChargeTest extends ChargeTestSupport {
    private static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");

    @ConfigProperty(name = "oncepay.provider.charge-call.breaker-window")
    Duration window;
    @ConfigProperty(name = "oncepay.provider.charge-call.breaker-min-calls")
    int minCalls;

    @Test
    void successesCountedBeforeACallHungAreNotCountedWithItsTimeoutSoTheTimeoutsAloneOpenTheBreaker() throws Exception {
        long answeredIn = clock.instant().getEpochSecond();
        int successes = 2 * minCalls; // counted with the timeouts, minCalls of them would be a third of the calls
        for (int i = 0; i < successes; i++) {
            assertEquals(201, post(newKey(), body(100, "EUR", "order_before_" + i)).status());
        }
        sim.holdCharges(); // from now on every charge hangs at the provider
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<ApiResponse> hung = client.submit(() -> post(newKey(), body(100, "EUR", "order_hung_0")));
            assertTrue(sim.awaitHeldRequests(1, Duration.ofSeconds(10)), "the hung charge reached the provider");
            // While it hangs, the successes' second leaves the breaker's window.
            clock.advance(window.plusSeconds(1));
            long failedIn = clock.instant().getEpochSecond();
            assertEquals(202, hung.get(30, TimeUnit.SECONDS).status(), "a timeout is an unknown outcome");
            for (int i = 1; i < minCalls; i++) {
                assertEquals(202, post(newKey(), body(100, "EUR", "order_hung_" + i)).status());
            }
            int reached = sim.chargeRequests();

            ApiResponse refused = post(newKey(), body(100, "EUR", "order_refused"));

            assertEquals(503, refused.status(), refused::body);
            assertEquals("https://oncepay.dev/problems/provider-unavailable", refused.json().get("type").asText());
            assertEquals(reached, sim.chargeRequests(), "the open breaker sent nothing more");
            assertEquals(new Counted(0, 0), breakers.countedIn(ACCOUNT, ProviderOperation.CHARGE, answeredIn),
                    "still uncounted when the first timeout came, and out of the window by then: never added");
            assertEquals(new Counted(minCalls, minCalls), breakers.countedIn(ACCOUNT, ProviderOperation.CHARGE, failedIn),
                    "the timeouts in theirs");
        } finally {
            client.shutdownNow();
            releaseHeldCharges(successes + minCalls);
        }
    }
}
