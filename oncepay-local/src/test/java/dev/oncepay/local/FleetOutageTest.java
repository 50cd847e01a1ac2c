package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.testkit.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A full provider outage met by a fleet of six charge sandboxes, measured where it
 * lands: at the provider ({@code /_sim/stats}) and in the functions' own log lines ({@code circuit
 * breaker <name> is now <state>}), never inferred from the clients.
 *
 * <ol>
 * <li>60 payments released together while the simulator is down, then waves of 30 until one,
 *     answered by every sandbox, reaches the provider not at all: until then the provider receives
 *     at most threshold + 6 charge requests (one in flight per sandbox when the breaker opens), and
 *     the first wave already fails fast.
 * <li>After the open period, still down: 30 payments answered by every sandbox send exactly one
 *     half-open probe fleet-wide.
 * <li>After the next open period, healed: one payment (the probe) closes the breaker for every
 *     sandbox; 30 more, answered by every sandbox, all pay, with one half-open transition in all.
 * </ol>
 *
 * <p>Every phase is measured before anything is asserted, so one run prints the whole picture
 * ({@code FleetOutageTest measured: ...}). The run uses the functions' defaults but for a longer
 * open period (charge breaker: 5 failed calls fleet-wide, open 20 s) and no reconcile, which would
 * add calls of its own. About 70 s with a built package; {@code ./test.sh} runs it, and alone:
 * {@code ./mvnw -B -ntp verify -pl oncepay-local -am -Dtest=FleetOutageTest -Dsurefire.failIfNoSpecifiedTests=false}.
 *
 * <p>Measured on 2026-11-30, same configuration. Before, with per-sandbox SmallRye breakers
 * (four runs): 60 charge requests reached the dead provider before every sandbox failed fast
 * (6 x their threshold of 10), 6 half-open probes per open period and 6 half-open → closed
 * transitions on recovery. With the fleet breaker (2026-12-03, two runs): 6 and 8 charge requests
 * (bound: 5 + 6), one probe and one half-open → closed transition fleet-wide.
 */
@Tag("local-run")
@Tag("slow")
class FleetOutageTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SANDBOXES = 6;
    private static final int PAYMENTS = 60;
    private static final int WAVE = 30;
    /**
     * ChargeCallConfig's default breaker-min-calls: the provider is dead from the first call, so the
     * window holds only failures and the breaker opens once it holds this many.
     */
    private static final int THRESHOLD = 5;
    /**
     * How long an open breaker refuses calls, set for this run (default 10 s): the 60 payments,
     * retrying until the breakers open, take up to ~8 s on a busy machine, and the fail-fast check
     * must end inside the open period.
     */
    private static final Duration OPEN_PERIOD = Duration.ofSeconds(20);
    /** Waits a little beyond the open period, for the fleet's clocks and the breaker's own timer. */
    private static final Duration PAST_OPEN_PERIOD = OPEN_PERIOD.plusSeconds(2);
    /** The gateway's line for each answered payment: which sandbox ran it, and the status. */
    private static final Pattern PAYMENT_ANSWER = Pattern.compile("\\[gateway\\] POST /payments -> (charge#\\d+)\\S* (\\d{3}) ");
    /** A charge breaker's transition as the charge sandbox that made it logs it (once fleet-wide). */
    private static final Pattern TRANSITION = Pattern.compile(
            "^\\[(charge#\\d+)\\S*\\] .*breaker transition [A-Z_]+ -> ([A-Z_]+) account=\\S+ operation=charge");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** One phase as measured: provider charge requests, answers per sandbox and status, transitions. */
    record Phase(String name, int chargeRequests, Map<String, Integer> answersBySandbox,
            Map<Integer, Integer> statuses, Map<String, Integer> transitions, long millis) {

        int sandboxesReached() {
            return answersBySandbox.size();
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s: %d charge requests at the provider, %d ms, answers %s by %d sandboxes %s,"
                    + " transitions %s", name, chargeRequests, millis, statuses, answersBySandbox.size(), answersBySandbox,
                    transitions);
        }
    }

    @Test
    @Timeout(600)
    void aFleetOfSandboxesProtectsADeadProviderWithOneBreaker() throws Exception {
        Path app = LambdaPackage.built();
        int apiPort = FreePorts.next();
        int simPort = FreePorts.next();
        List<String> args = List.of(
                "--app", app.toString(),
                "--work-dir", Path.of("target/fleet-outage-test/run").toAbsolutePath().toString(),
                "--api-port", Integer.toString(apiPort),
                "--sim-port", Integer.toString(simPort),
                "--dynamo-port", Integer.toString(FreePorts.next()),
                "--queue-port", Integer.toString(FreePorts.next()),
                // Charges answered at once only: no queued charge, so no worker.
                "--sandboxes", "charge=" + SANDBOXES + ",webhook=1,reconcile=0,charge-worker=0",
                "--reconcile-every", "off",
                "--env", "ONCEPAY_PROVIDER_CHARGE_CALL_BREAKER_DELAY=" + OPEN_PERIOD.toSeconds() + "S",
                // Each evaluation of the fleet's window in the log: what a count above the bound came from.
                "--env", "QUARKUS_LOG_CATEGORY__DEV_ONCEPAY_PROVIDER_POLICY__LEVEL=DEBUG");
        String api = "http://127.0.0.1:" + apiPort;
        String sim = "http://127.0.0.1:" + simPort;
        List<Phase> phases = new ArrayList<>();
        List<String> output = new CopyOnWriteArrayList<>();
        try (LocalRunChild run = LocalRunChild.start(args, line -> {
            output.add(line);
            System.out.println("fleet-outage | " + line);
        })) {
            assertTrue(run.awaitReady(Duration.ofSeconds(240)), "the local run was not ready in time");
            String ready = output.stream().filter(l -> l.contains(LocalRun.READY)).findFirst().orElseThrow();
            assertTrue(ready.contains("charge " + SANDBOXES + "/" + SANDBOXES + " ready"), ready);
            post(sim + "/_sim/reset", "");
            post(sim + "/_sim/faults", "{\"outage\":true}");

            Phase burst = phase(output, sim, "burst", Duration.ZERO, () -> pay(api, "burst", PAYMENTS));
            phases.add(burst);
            // Waves until one reaches every sandbox and the provider not at all (at most three):
            // what a wave still sends counts as sent before the fleet fails fast.
            List<Phase> waves = new ArrayList<>();
            Phase failFast;
            do {
                String name = "fail-fast-" + (waves.size() + 1);
                failFast = phase(output, sim, name, Duration.ZERO, () -> pay(api, name, WAVE));
                waves.add(failFast);
            } while (!(failFast.chargeRequests() == 0 && failFast.sandboxesReached() == SANDBOXES) && waves.size() < 3);
            phases.addAll(waves);
            int beforeFailFast = burst.chargeRequests() + waves.stream().mapToInt(Phase::chargeRequests).sum();
            long outageToFailFast = burst.millis() + waves.stream().mapToLong(Phase::millis).sum();
            Phase lastWave = failFast;
            Phase probe = phase(output, sim, "probe", PAST_OPEN_PERIOD, () -> pay(api, "probe", WAVE));
            phases.add(probe);

            post(sim + "/_sim/faults", "{\"outage\":false}");
            Phase recovery = phase(output, sim, "recovery", PAST_OPEN_PERIOD, () -> {
                List<Integer> first = pay(api, "recovery-probe", 1);
                List<Integer> wave = pay(api, "recovery", WAVE);
                List<Integer> all = new ArrayList<>(first);
                all.addAll(wave);
                return all;
            });
            phases.add(recovery);
            System.out.println("FleetOutageTest measured: charge requests before every sandbox fails fast: "
                    + beforeFailFast + "; " + phases);

            assertAll(
                    () -> assertTrue(beforeFailFast <= THRESHOLD + SANDBOXES, "a dead provider receives at most threshold + "
                            + SANDBOXES + " charge requests before the fleet fails fast: " + beforeFailFast),
                    () -> assertTrue(!burst.statuses().containsKey(201), "nothing paid: " + burst),
                    () -> assertTrue(outageToFailFast < OPEN_PERIOD.toMillis(),
                            "the fail-fast check ran inside one open period: " + outageToFailFast + " ms"),
                    () -> assertEquals(SANDBOXES, lastWave.sandboxesReached(), "every sandbox answered: " + lastWave),
                    () -> assertEquals(0, lastWave.chargeRequests(), "every sandbox fails fast: " + lastWave),
                    () -> assertEquals(1, waves.size(), "the first wave after the burst fails fast: " + waves),
                    () -> assertEquals(Map.of(503, WAVE), lastWave.statuses(), lastWave.toString()),
                    () -> assertEquals(SANDBOXES, probe.sandboxesReached(), "every sandbox answered: " + probe),
                    () -> assertTrue(probe.millis() < OPEN_PERIOD.toMillis(), "one open period: " + probe),
                    () -> assertEquals(1, probe.chargeRequests(), "one half-open probe fleet-wide: " + probe),
                    () -> assertEquals(1, probe.transitions().getOrDefault("HALF_OPEN", 0), "one half-open: " + probe),
                    () -> assertEquals(SANDBOXES, recovery.sandboxesReached(), "every sandbox answered: " + recovery),
                    () -> assertEquals(Map.of(201, WAVE + 1), recovery.statuses(), "every payment paid: " + recovery),
                    () -> assertEquals(WAVE + 1, recovery.chargeRequests(), "one request per payment: " + recovery),
                    () -> assertEquals(1, recovery.transitions().getOrDefault("HALF_OPEN", 0),
                            "one probe closes the breaker for every sandbox: " + recovery));
        }
    }

    /** Something that sends payments and returns their statuses. */
    private interface Payments {
        List<Integer> send() throws Exception;
    }

    /**
     * Waits {@code first} (a timed state: an open period ending), then runs {@code payments}, and
     * measures both: the provider's charge requests, and the run's lines (awaited until the gateway
     * logged every answer); a breaker's own timer may move it while nobody calls.
     */
    private Phase phase(List<String> output, String sim, String name, Duration first, Payments payments) throws Exception {
        int mark = output.size();
        int before = chargeRequests(sim);
        Thread.sleep(first.toMillis());
        long started = System.nanoTime();
        List<Integer> statuses = payments.send();
        long millis = (System.nanoTime() - started) / 1_000_000;
        List<String> lines = awaitAnswersLogged(output, mark, statuses.size());
        Map<String, Integer> bySandbox = new TreeMap<>();
        Map<String, Integer> transitions = new TreeMap<>();
        for (String line : lines) {
            Matcher answer = PAYMENT_ANSWER.matcher(line);
            if (answer.find()) {
                bySandbox.merge(answer.group(1), 1, Integer::sum);
            }
            Matcher transition = TRANSITION.matcher(line);
            if (transition.find()) {
                transitions.merge(transition.group(2), 1, Integer::sum);
            }
        }
        Map<Integer, Integer> byStatus = new TreeMap<>(statuses.stream()
                .collect(Collectors.toMap(s -> s, s -> 1, Integer::sum)));
        return new Phase(name, chargeRequests(sim) - before, bySandbox, byStatus, transitions, millis);
    }

    /** {@code count} payments, released together, each with its own key; their statuses. */
    private List<Integer> pay(String api, String phase, int count) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(count);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> answers = IntStream.range(0, count).mapToObj(i -> threads.submit(() -> {
                HttpRequest request = HttpRequest.newBuilder(URI.create(api + "/payments"))
                        .header("Idempotency-Key", "fleet-" + phase + "-" + i)
                        .header("X-Tenant-Id", "merchant-a")
                        .header("Content-Type", "application/json")
                        .timeout(Duration.ofSeconds(60))
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"amount\":100,\"currency\":\"EUR\",\"reference\":\"" + phase + "_" + i + "\"}"))
                        .build();
                start.await();
                return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            })).toList();
            start.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> answer : answers) {
                statuses.add(answer.get());
            }
            return statuses;
        } finally {
            threads.shutdownNow();
        }
    }

    /** The run's lines since {@code mark}, once the gateway logged {@code answers} payment answers (it logs after answering). */
    private static List<String> awaitAnswersLogged(List<String> output, int mark, int answers) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            List<String> lines = List.copyOf(output.subList(mark, output.size()));
            long logged = lines.stream().filter(l -> PAYMENT_ANSWER.matcher(l).find()).count();
            if (logged >= answers) {
                return lines;
            }
            if (System.nanoTime() > deadline) {
                fail("the gateway logged " + logged + " of " + answers + " payment answers");
            }
            Thread.sleep(50);
        }
    }

    private int chargeRequests(String sim) throws Exception {
        HttpResponse<String> stats = http.send(HttpRequest.newBuilder(URI.create(sim + "/_sim/stats")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, stats.statusCode(), stats.body());
        return JSON.readTree(stats.body()).get("chargeRequests").asInt();
    }

    private void post(String url, String body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), url + ": " + response.body());
    }
}
