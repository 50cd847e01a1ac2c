package dev.oncepay.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A transport's client built ahead of its first call, on a thread of its own, and still built once. */
@Timeout(30)
class RenewableHttpClientTest {
    @Test
    void aClientBuiltInTheBackgroundIsTheOneTheFirstCallGets() throws Exception {
        RenewableHttpClient http = new RenewableHttpClient(Duration.ofSeconds(1));

        http.buildInBackground("test-http-build");
        awaitBuilt(http);

        HttpClient first = http.client();
        assertSame(first, http.client());
        http.forgetConnections();
        assertFalse(http.built());
        assertNotSame(first, http.client(), "a fresh client after the connections were forgotten");
    }

    @Test
    void aCallDuringTheBackgroundBuildGetsTheSameClient() throws Exception {
        for (int i = 0; i < 20; i++) {
            RenewableHttpClient http = new RenewableHttpClient(Duration.ofSeconds(1));
            http.buildInBackground("test-http-build-" + i);
            HttpClient called = http.client();
            awaitBuilderEnded("test-http-build-" + i);
            assertSame(called, http.client(), "one client, whichever thread built it");
        }
    }

    private static void awaitBuilt(RenewableHttpClient http) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!http.built()) {
            assertTrue(System.nanoTime() < deadline, "built in the background without a call");
            Thread.sleep(5);
        }
    }

    private static void awaitBuilderEnded(String name) throws InterruptedException {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                t.join(TimeUnit.SECONDS.toMillis(20));
                assertFalse(t.isAlive(), name + " ended");
            }
        }
    }
}
