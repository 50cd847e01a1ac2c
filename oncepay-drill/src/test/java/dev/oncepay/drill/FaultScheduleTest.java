package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import dev.oncepay.sim.PspSimulator;
import dev.oncepay.sim.merchant.MerchantEndpoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fault schedules against a real simulator and merchant endpoint: the slow second account, the
 * outage's own counts, and the merchant's failures and dark window.
 */
class FaultScheduleTest {
    private static final String CHARGE = "{\"amount\":100,\"currency\":\"EUR\",\"reference\":\"pay_1\"}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private PspSimulator sim;

    @BeforeEach
    void start() {
        sim = PspSimulator.start(0);
    }

    @AfterEach
    void stop() {
        sim.close();
    }

    @Test
    void aSlowSecondAccountSlowsTheStripeApiThroughoutAndIsOffAfterwards() throws Exception {
        FaultSchedule.Plan plan = FaultSchedule.provider("none", 1, Duration.ofMinutes(1), Duration.ofSeconds(15),
                Duration.ofMillis(2500));
        FaultSchedule schedule = new FaultSchedule(http, sim.baseUrl(), new Recorder(), plan, () -> 0.0);

        schedule.start();
        assertEquals(2500, sim.faults().stripeLatencyMs());
        assertEquals(0, sim.faults().latencyMs(), "the generic API stays fast");
        schedule.allOff();

        assertEquals(0, sim.faults().stripeLatencyMs());
        assertNull(schedule.outageStats(), "profile none has no outage");
    }

    @Test
    void theOutageIsFramedByTheProvidersOwnRequestCounts() throws Exception {
        FaultSchedule.Plan plan = new FaultSchedule.Plan("provider", "/_sim/faults", FaultSchedule.none(),
                FaultSchedule.none(), List.of(), Duration.ofSeconds(3), 0.5);
        AtomicBoolean halfway = new AtomicBoolean();
        FaultSchedule schedule = new FaultSchedule(http, sim.baseUrl(), new Recorder(), plan,
                () -> halfway.get() ? 0.5 : 0.0);
        schedule.start();
        try {
            assertEquals(200, charge("before").statusCode(), "before the outage: not counted");
            halfway.set(true);
            await(() -> sim.faults().outage() && schedule.outageStats() != null, "the outage starts");
            assertEquals(503, charge("during-1").statusCode());
            assertEquals(503, charge("during-2").statusCode());
            assertEquals(503, send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/v1/charges?reference=pay_1"))
                    .GET().build()).statusCode());
            await(() -> schedule.outageStats().atEnd() != null, "the outage ends");
            assertEquals(200, charge("after").statusCode(), "after the outage: not counted");

            assertEquals("2 charge requests, 1 lookups", schedule.outageStats().during());
        } finally {
            schedule.allOff();
        }
        assertNotNull(schedule.outageStats().atStart());
    }

    @Test
    void theMerchantFailsAFifthThroughoutAndGoesDarkHalfwayThenHeals() throws Exception {
        try (MerchantEndpoint merchant = MerchantEndpoint.start(0, java.util.Map.of())) {
            AtomicBoolean halfway = new AtomicBoolean();
            FaultSchedule schedule = new FaultSchedule(http, merchant.baseUrl(), new Recorder(),
                    FaultSchedule.merchant(0.2, Duration.ofSeconds(2)), () -> halfway.get() ? 0.5 : 0.0);
            schedule.start();
            try {
                assertEquals(0.2, merchant.faults().failRate());
                assertFalse(merchant.faults().dark());
                halfway.set(true);
                await(() -> merchant.faults().dark(), "the merchant goes dark");
                assertEquals(FaultSchedule.MERCHANT_DARK_STALL_MS, merchant.faults().stallMs());
                await(() -> !merchant.faults().dark(), "the merchant is back");
                assertEquals(0.2, merchant.faults().failRate(), "failing a fifth again");
            } finally {
                schedule.allOff();
            }
            assertEquals(0.0, merchant.faults().failRate());
            assertFalse(merchant.faults().dark());
        }
    }

    private HttpResponse<String> charge(String key) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/v1/charges")).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(CHARGE)).build());
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail(what + ": not within 10 s");
            }
            Thread.sleep(20);
        }
    }
}
