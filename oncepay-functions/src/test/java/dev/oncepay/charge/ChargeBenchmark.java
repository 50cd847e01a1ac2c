package dev.oncepay.charge;

import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Latency and throughput of the charge path on this machine (dynalite + simulator over loopback).
 * Measured, never asserted: {@code ./mvnw verify -pl oncepay-functions -am -Dtest=ChargeBenchmark -Dsurefire.failIfNoSpecifiedTests=false -Dbenchmark=true}.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
@EnabledIfSystemProperty(named = "benchmark", matches = "true")
class ChargeBenchmark extends ChargeTestSupport {
    private static final int WARMUP = 100;
    private static final int PAYMENTS = Integer.getInteger("benchmark.payments", 500);
    private static final int THREADS = Integer.getInteger("benchmark.threads", 8);

    @Test
    void measure() throws Exception {
        run("warm-up", WARMUP, 4, false);
        run("first charge, sequential", PAYMENTS, 1, false);
        run("replay, sequential", PAYMENTS, 1, true);
        run("first charge, " + THREADS + " threads", PAYMENTS, THREADS, false);
        run("replay, " + THREADS + " threads", PAYMENTS, THREADS, true);
    }

    private void run(String name, int count, int threads, boolean replay) throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(newKey());
        }
        if (replay) {
            for (String key : keys) {
                direct.call(HttpApiEvents.postPayment(tenant, key, body(1000, "EUR", "bench")));
            }
        }
        dynamoRequests.reset();
        int providerBefore = sim.chargeRequests();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Long>> timings = new ArrayList<>();
        long start = System.nanoTime();
        for (String key : keys) {
            timings.add(pool.submit(() -> {
                long t0 = System.nanoTime();
                ApiResponse r = direct.call(HttpApiEvents.postPayment(tenant, key, body(1000, "EUR", "bench")));
                if (r.status() != 201) {
                    throw new IllegalStateException("unexpected " + r.status());
                }
                return System.nanoTime() - t0;
            }));
        }
        List<Long> nanos = new ArrayList<>();
        for (Future<Long> f : timings) {
            nanos.add(f.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        Collections.sort(nanos);
        long dynamo = dynamoRequests.snapshot().values().stream().mapToLong(Long::longValue).sum();
        System.out.printf("BENCH %-28s n=%d  %.0f req/s  p50=%.1f ms  p95=%.1f ms  p99=%.1f ms  "
                + "dynamo/op=%.2f  provider/op=%.2f%n", name, count, count / seconds, ms(nanos, 0.50),
                ms(nanos, 0.95), ms(nanos, 0.99), (double) dynamo / count,
                (double) (sim.chargeRequests() - providerBefore) / count);
    }

    private static double ms(List<Long> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1)) / 1e6;
    }
}
