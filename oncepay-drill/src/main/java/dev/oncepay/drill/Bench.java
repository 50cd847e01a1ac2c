package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.contract.DeploymentSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark ({@code ./drill.sh --bench}): starts the local run itself and measures, in one
 * invocation, the figures docs/benchmark.md reports:
 * <ol>
 * <li>cold start to first answer per function, one function at a time on an otherwise idle run:
 * the sandbox is recycled (its process ended, left cold) and sent its first event through the real
 * path — charge {@code POST /payments}, webhook a signed provider event, both through the gateway;
 * reconcile the schedule's event; charge-worker the queue's message of a {@code POST /payments}
 * with {@code Prefer: respond-async} — and the local run reports init (process start to its first
 * {@code GET /invocation/next}) and the first invocation (handed out to answer posted), as Lambda's
 * REPORT line does;</li>
 * <li>a killed charge sandbox's replacement: SIGKILL after it lived past the supervisor's healthy
 * lifetime (so it is replaced at once), a {@code POST /payments} at once, kill to {@code 201};</li>
 * <li>added latency, 1 client, no provider latency: sequential charges through oncepay and straight
 * to the simulator, alternating, the same client and body, each charge's time split between the
 * function, the local store and the local run's stand-ins; in two regimes: the early one (a new
 * charge sandbox after its first {@code earlyWarmup} charges, its first charges listed one by one)
 * and the warm one (after {@code warmup} charges);</li>
 * <li>throughput, N clients, provider latency, N charge sandboxes (a second local run), in the same
 * two regimes (new sandboxes, which replace those that warmed the run's stand-ins for AWS's services,
 * after about {@code earlyWarmup} charges each; then after {@code warmup}): charges per second through oncepay and direct over the same duration, and, for
 * each side, the charge function's DynamoDB requests and mean run per charge, and the CPU per charge
 * each kind of process spent ({@link BenchCpu}: sandboxes, the charge sandboxes by thread (request,
 * JIT compiler, HTTP clients), dynalite, the local-run JVM by thread group, this JVM's clients, and
 * the machine as a whole);</li>
 * <li>DynamoDB requests (counted by the store proxy, per function) and provider calls (the
 * simulator's count) of a first charge, of the provider's webhook for it, and of a replay;</li>
 * <li>queued charges ({@code Prefer: respond-async}) beside charges in the request, 1 client, at the
 * provider's latency: the {@code 202}'s latency, the time from it to the outcome, and the sandbox
 * time each payment holds — the charge function's, and the charge worker's for a queued one;</li>
 * <li>RSS of every sandbox after the load;</li>
 * <li>wallets: DynamoDB requests of a credit, a debit, its replay, a refused debit
 * ({@code 402}) and a {@code GET}; and the hot wallet: the throughput run's clients debit ONE wallet
 * back to back (distinct keys, a balance that never runs out), then eight wallets for contrast,
 * debits per second and the DynamoDB requests per debit under that load.</li>
 * </ol>
 * Prints a table and writes every figure to {@code bench.json}. Timings on a shared machine are
 * noise-prone: the counts are exact, the times are what this machine did this time.
 */
public final class Bench {
    static final List<String> FUNCTIONS = List.of(DeploymentSettings.FUNCTION_CHARGE,
            DeploymentSettings.FUNCTION_WEBHOOK, DeploymentSettings.FUNCTION_RECONCILE,
            DeploymentSettings.FUNCTION_CHARGE_WORKER);
    /** The supervisor replaces a sandbox at once only if it lived this long ({@code Sandbox.HEALTHY_LIFETIME}, plus margin). */
    private static final Duration HEALTHY_AGE = Duration.ofSeconds(21);
    /** Longer than the fleet breaker's cache (1 s): the next charge makes the breaker's request of its period again. */
    private static final Duration BREAKER_CACHE_EXPIRED = Duration.ofMillis(1500);
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** What one run of the benchmark produced. */
    public record Outcome(ObjectNode figures, String table, Path json) {
    }

    private final BenchOptions options;
    private final String command;
    private final PrintStream out;
    private final ObjectNode figures = JSON.createObjectNode();
    private final AtomicInteger keys = new AtomicInteger();
    /** Debits of the hot-wallet phase answered 201, warm-up included: what its wallets' balances must show. */
    private final AtomicLong debitsAnswered = new AtomicLong();
    private final String runId = UUID.randomUUID().toString().substring(0, 8);

    /** @param command how it was started, for the figures' record */
    Bench(BenchOptions options, String command, PrintStream out) {
        this.options = options;
        this.command = command;
        this.out = out;
    }

    public static void main(String[] args) {
        BenchOptions options;
        try {
            options = BenchOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("bench: " + e.getMessage());
            }
            System.err.println(BenchOptions.usage());
            System.exit(e.getMessage().isEmpty() ? 0 : 2);
            return;
        }
        int status = 0;
        try {
            new Bench(options, "./drill.sh " + String.join(" ", args), System.out).run();
        } catch (Exception e) {
            System.out.println("bench: could not run: " + e);
            e.printStackTrace(System.out);
            status = 3;
        }
        System.exit(status);
    }

    /** Runs the benchmark; everything it started is stopped before it returns. */
    public static Outcome run(BenchOptions options, PrintStream out) throws Exception {
        return new Bench(options, "Bench.run(" + options + ")", out).run();
    }

    Outcome run() throws Exception {
        Files.createDirectories(options.reportDir());
        long started = System.nanoTime();
        figures.put("date", Instant.now().toString());
        figures.put("command", command);
        figures.put("cores", Runtime.getRuntime().availableProcessors());
        figures.put("loadAverageAtStart", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        figures.putObject("options")
                .put("coldRepeats", options.coldRepeats())
                .put("killRepeats", options.killRepeats())
                .put("latencyRequests", options.latencyRequests())
                .put("warmup", options.warmup())
                .put("earlyWarmup", options.earlyWarmup())
                .put("earlyCharges", options.earlyCharges())
                .put("throughputSeconds", options.throughputDuration().toMillis() / 1000.0)
                .put("throughputClients", options.throughputClients())
                .put("throughputSandboxes", options.throughputSandboxes())
                .put("providerLatencyMs", options.providerLatency().toMillis())
                .put("hotWalletSeconds", options.hotWalletDuration().toMillis() / 1000.0)
                .put("queuedCharges", options.queuedCharges())
                .put("primed", options.primed());

        Path singleLog = options.reportDir().resolve("local-run-single.log");
        out.printf("bench: local run with one sandbox per function (output: %s)%n", singleLog);
        try (BenchRun run = BenchRun.start(options, 1, singleLog)) {
            coldStarts(run);
            addedLatency(run);
            earlyLatency(run);
            queuedCharges(run);
            requestsPerCharge(run);
            requestsPerWalletOperation(run);
            rss(run, "single"); // before the kills: the charge sandbox that carried the load is still there
            killedReplacement(run);
        }
        Path loadLog = options.reportDir().resolve("local-run-throughput.log");
        out.printf("bench: local run with %d charge sandboxes (output: %s)%n", options.throughputSandboxes(), loadLog);
        try (BenchRun run = BenchRun.start(options, options.throughputSandboxes(), loadLog)) {
            throughput(run);
            hotWallet(run);
            rss(run, "throughput");
        }
        figures.put("seconds", Math.round((System.nanoTime() - started) / 1e8) / 10.0);
        // Dollars at published prices from this run's durations and the counted units (docs/cost.md).
        CostModel cost = new CostModel(CostModel.Prices.US_EAST_1, CostModel.inputs(CostModel.Measured.fromBench(figures),
                CostModel.Deployment.defaults(), CostModel.Units.measured()));
        figures.set("cost", JSON.valueToTree(cost.compute()));
        String table = BenchReport.table(figures);
        Path json = options.reportDir().resolve("bench.json");
        Files.writeString(json, JSON.writeValueAsString(figures));
        out.println(table);
        out.println(cost.markdown());
        out.println("figures: " + json.toAbsolutePath());
        return new Outcome(figures, table, json);
    }

    // --- 1. cold start per function -------------------------------------------------------------

    private void coldStarts(BenchRun run) throws Exception {
        ObjectNode cold = figures.putObject("coldStart");
        // A real payment for the webhook's event to be about, and warm paths everywhere first.
        JsonNode payment = run.charge(key(), "bench_cold_payment").json();
        String paymentId = payment.path("id").asText();
        String chargeId = payment.path("providerPaymentId").asText();
        queued(run, "bench_cold_queued_warm"); // the charge function's queue client, the queue and its mapping
        run.awaitQuiet(Duration.ofSeconds(60));
        for (String function : FUNCTIONS) {
            cold.putObject(function).putArray("runs");
        }
        for (int i = 1; i <= options.coldRepeats(); i++) {
            for (String function : FUNCTIONS) {
                run.awaitQuiet(Duration.ofSeconds(60));
                BenchRun.SandboxStatus before = run.sandbox(function, 1);
                int generation = before.generation();
                run.recycle(function, 1);
                BenchRun.Answer answer;
                double clientMs;
                if (function.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER)) {
                    // The client sees the worker's first run as its payment's outcome: POST to that.
                    QueuedStep queued = queued(run, "bench_cold_queued_" + i, before);
                    answer = run.payment(queued.paymentId());
                    clientMs = queued.accepted().ms() + queued.toOutcomeMs();
                } else {
                    answer = switch (function) {
                        case DeploymentSettings.FUNCTION_CHARGE -> run.charge(key(), "bench_cold_" + i);
                        case DeploymentSettings.FUNCTION_WEBHOOK -> run.webhook(paymentId, chargeId);
                        default -> run.schedule(function);
                    };
                    clientMs = answer.ms();
                }
                BenchRun.SandboxStatus s = run.sandbox(function, 1);
                boolean ok = switch (function) {
                    case DeploymentSettings.FUNCTION_RECONCILE -> answer.json().path("ok").asBoolean();
                    case DeploymentSettings.FUNCTION_CHARGE_WORKER -> answer.status() == 200
                            && answer.json().path("status").asText().equals("succeeded");
                    default -> answer.status() == expected(function);
                };
                if (!ok || s.generation() <= generation || s.initMs() == null || s.firstInvocationMs() == null) {
                    throw new IOException("cold " + function + " #" + i + ": answer " + answer.status() + " "
                            + answer.body() + ", sandbox " + s);
                }
                ObjectNode r = ((ArrayNode) cold.path(function).path("runs")).addObject();
                r.put("initMs", round(s.initMs()));
                r.put("firstInvocationMs", round(s.firstInvocationMs()));
                r.put("totalMs", round(s.initMs() + s.firstInvocationMs()));
                r.put("clientMs", round(clientMs));
                out.printf("bench: cold %-13s #%d: init %6.0f ms + first invocation %6.0f ms = %6.0f ms (client saw %.0f ms)%n",
                        function, i, s.initMs(), s.firstInvocationMs(), s.initMs() + s.firstInvocationMs(), clientMs);
            }
        }
        for (String function : FUNCTIONS) {
            ObjectNode f = (ObjectNode) cold.path(function);
            for (String figure : List.of("initMs", "firstInvocationMs", "totalMs", "clientMs")) {
                List<Double> values = new ArrayList<>();
                f.path("runs").forEach(r -> values.add(r.path(figure).asDouble()));
                f.set(figure, range(values));
            }
        }
    }

    private static int expected(String function) {
        return function.equals(DeploymentSettings.FUNCTION_CHARGE) ? 201 : 200;
    }

    // --- 2. killed sandbox replacement ----------------------------------------------------------

    private void killedReplacement(BenchRun run) throws Exception {
        ObjectNode killed = figures.putObject("killedReplacement");
        ArrayNode runs = killed.putArray("runs");
        List<Double> values = new ArrayList<>();
        for (int i = 1; i <= options.killRepeats(); i++) {
            run.awaitQuiet(Duration.ofSeconds(60));
            BenchRun.SandboxStatus before = run.sandbox(DeploymentSettings.FUNCTION_CHARGE, 1);
            double wait = HEALTHY_AGE.toMillis() / 1000.0 - before.ageSeconds();
            if (wait > 0) {
                out.printf("bench: kill #%d waits %.0f s until the charge sandbox has lived %d s (else its"
                        + " replacement is delayed as a crash loop's would be)%n", i, wait, HEALTHY_AGE.toSeconds());
                Thread.sleep((long) (wait * 1000));
            }
            ProcessHandle process = ProcessHandle.of(before.pid()).orElseThrow();
            long killedAt = System.nanoTime();
            process.destroyForcibly();
            BenchRun.Answer answer = run.charge(key(), "bench_kill_" + i);
            double ms = (System.nanoTime() - killedAt) / 1e6;
            BenchRun.SandboxStatus after = run.sandbox(DeploymentSettings.FUNCTION_CHARGE, 1);
            ObjectNode r = runs.addObject();
            r.put("killToAnswerMs", round(ms));
            r.put("status", answer.status());
            r.put("initMs", after.initMs() == null ? null : round(after.initMs()));
            r.put("firstInvocationMs", after.firstInvocationMs() == null ? null : round(after.firstInvocationMs()));
            out.printf("bench: kill #%d: SIGKILL -> %d after %.0f ms (replacement init %s ms, first invocation %s ms)%n",
                    i, answer.status(), ms, after.initMs() == null ? "-" : Math.round(after.initMs()),
                    after.firstInvocationMs() == null ? "-" : Math.round(after.firstInvocationMs()));
            if (answer.status() == 201) {
                values.add(ms);
            }
        }
        killed.put("answered201", values.size());
        killed.set("killToAnswerMs", range(values));
    }

    // --- 3. added latency, 1 client: the early and the warm regime -------------------------------

    /** Charges of a new sandbox whose breakdown bench.json lists one by one (the rest only in its figures). */
    static final int EARLY_SERIES = 20;

    /**
     * The early regime: a new charge sandbox (the one before it ended, as each burst on Lambda starts
     * new ones; its first charge starts it) serves {@code earlyWarmup} charges, then
     * {@code earlyCharges} are measured as {@link #sequential} measures them. The warm regime ran
     * first, so the local run's stand-ins for AWS's services (gateway, store proxy, dynalite, the
     * webhook sandbox) are warm, as AWS's are: only the charge sandbox is new. The first
     * {@value #EARLY_SERIES} charges of the sandbox, its warm-up included, are listed one by one.
     */
    private void earlyLatency(BenchRun run) throws Exception {
        run.simFaults("{\"latencyMs\":0}");
        run.awaitQuiet(Duration.ofSeconds(60));
        run.recycle(DeploymentSettings.FUNCTION_CHARGE, 1);
        List<Step> warmup = sequentialSteps(run, options.earlyWarmup(), "bench_early_warm_");
        List<Step> measured = sequentialSteps(run, options.earlyCharges(), "bench_early_");
        ObjectNode early = sequential(measured);
        early.put("warmupCharges", options.earlyWarmup());
        List<Step> all = new ArrayList<>(warmup);
        all.addAll(measured);
        ArrayNode series = early.putArray("firstCharges");
        for (int i = 0; i < Math.min(EARLY_SERIES, all.size()); i++) {
            series.add(all.get(i).figures(i + 1));
        }
        figures.set("earlyLatency", early);
        out.printf("bench: early regime, 1 client: added p50 %s ms over the %d charges after a new sandbox's first %d%n",
                early.path("addedP50Ms").asText(), options.earlyCharges(), options.earlyWarmup());
    }

    /** The warm regime: the sandbox serves {@code warmup} charges (and as many go direct), then {@link #sequential}. */
    private void addedLatency(BenchRun run) throws Exception {
        run.simFaults("{\"latencyMs\":0}");
        for (int i = 0; i < options.warmup(); i++) {
            run.charge(key(), "bench_warm_" + i);
            run.directCharge(key(), "bench_warm_direct_" + i);
        }
        run.awaitQuiet(Duration.ofSeconds(60));
        ObjectNode latency = sequential(sequentialSteps(run, options.latencyRequests(), "bench_latency_"));
        figures.set("addedLatency", latency);
        out.printf("bench: added latency, 1 client: oncepay p50 %s ms, direct p50 %s ms%n",
                latency.path("oncepay").path("p50Ms").asText(), latency.path("direct").path("p50Ms").asText());
    }

    /**
     * One charge through oncepay and one straight to the simulator, as the client saw them, and how the
     * charge's time split: the function's run (hand-out to answer, as the local run timed it; null if
     * the sandbox was replaced meanwhile), and of the charge function's store requests in that time the
     * time they took at the local store (the fault proxy), in dynalite behind it, and dynalite's own
     * work (null unless it reported it for each).
     */
    private record Step(int status, double ms, int directStatus, double directMs, Double functionMs, long storeRequests,
            double storeMs, double dynaliteMs, Double dynaliteOwnMs) {
        boolean answered() {
            return status == 201 && directStatus == 200;
        }

        ObjectNode figures(int charge) {
            ObjectNode n = JSON.createObjectNode().put("charge", charge).put("status", status).put("clientMs", round(ms))
                    .put("directMs", round(directMs)).put("addedMs", round(ms - directMs));
            n.put("functionMs", functionMs == null ? null : round(functionMs));
            n.put("storeRequests", storeRequests).put("storeMs", round(storeMs)).put("dynaliteMs", round(dynaliteMs));
            n.put("dynaliteOwnMs", dynaliteOwnMs == null ? null : round(dynaliteOwnMs));
            if (functionMs != null) {
                n.put("functionOwnMs", round(functionMs - storeMs));
                n.put("localRunMs", round(ms - functionMs));
            }
            return n;
        }
    }

    /**
     * {@code count} charges through oncepay and as many straight to the simulator, alternating (so drift
     * on a shared machine touches both sides alike), with the same client and body; each charge's time
     * split by the local run's and the store proxy's own figures, read between the requests.
     */
    private List<Step> sequentialSteps(BenchRun run, int count, String reference) throws Exception {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            BenchRun.SandboxStatus before = run.sandbox(DeploymentSettings.FUNCTION_CHARGE, 1);
            JsonNode storeBefore = chargeStoreTiming(run);
            BenchRun.Answer a = run.charge(key(), reference + i);
            BenchRun.SandboxStatus after = run.sandbox(DeploymentSettings.FUNCTION_CHARGE, 1);
            JsonNode storeAfter = chargeStoreTiming(run);
            BenchRun.Answer d = run.directCharge(key(), reference + "direct_" + i);
            Double function = oneRun(before, after);
            long requests = storeAfter.path("requests").asLong() - storeBefore.path("requests").asLong();
            long ownReported = storeAfter.path("upstreamOwnRequests").asLong() - storeBefore.path("upstreamOwnRequests").asLong();
            steps.add(new Step(a.status(), a.ms(), d.status(), d.ms(), function, requests,
                    storeAfter.path("handledMs").asDouble() - storeBefore.path("handledMs").asDouble(),
                    storeAfter.path("upstreamMs").asDouble() - storeBefore.path("upstreamMs").asDouble(),
                    ownReported == requests ? storeAfter.path("upstreamOwnMs").asDouble()
                            - storeBefore.path("upstreamOwnMs").asDouble() : null));
        }
        return steps;
    }

    /**
     * The time a sandbox spent on the one invocation it ran between two readings (hand-out to answer):
     * a new process's first counts from zero; null if it ran none or several, or was replaced meanwhile.
     */
    static Double oneRun(BenchRun.SandboxStatus before, BenchRun.SandboxStatus after) {
        boolean sameProcess = after.generation() == before.generation();
        if (after.invocations() != (sameProcess ? before.invocations() : 0) + 1) {
            return null;
        }
        return after.busyMs() - (sameProcess ? before.busyMs() : 0);
    }

    /** The charge function's store requests so far and their time at the store proxy ({@code /_store/stats}). */
    private static JsonNode chargeStoreTiming(BenchRun run) throws IOException, InterruptedException {
        return run.storeStats().path("timingByCaller").path(DeploymentSettings.FUNCTION_CHARGE);
    }

    /**
     * The added latency of sequential charges, and where it goes: the function's runs against what
     * the client saw (the rest is the local stand-ins': gateway, event mapping, Runtime API hand-out,
     * loopback HTTP), and of the function's run the time its store requests took at the local store:
     * in the fault proxy and in dynalite behind it (the webhook's requests not included).
     */
    private static ObjectNode sequential(List<Step> steps) {
        List<Double> oncepay = new ArrayList<>();
        List<Double> direct = new ArrayList<>();
        List<Double> added = new ArrayList<>();
        for (Step step : steps) {
            if (step.answered()) {
                oncepay.add(step.ms());
                direct.add(step.directMs());
                added.add(step.ms() - step.directMs());
            }
        }
        ObjectNode latency = JSON.createObjectNode();
        latency.put("clients", 1);
        latency.put("providerLatencyMs", 0);
        latency.put("requests", oncepay.size());
        latency.put("failures", steps.size() - oncepay.size());
        latency.set("oncepay", percentiles(oncepay));
        latency.set("direct", percentiles(direct));
        latency.put("addedP50Ms", round(percentile(oncepay, 50) - percentile(direct, 50)));
        latency.put("addedP99Ms", round(percentile(oncepay, 99) - percentile(direct, 99)));
        latency.put("addedMeanMs", round(mean(added)));
        List<Step> timed = steps.stream().filter(step -> step.functionMs() != null).toList();
        if (timed.isEmpty()) {
            return latency;
        }
        double clientMean = mean(timed.stream().map(Step::ms).toList());
        double functionMean = mean(timed.stream().map(Step::functionMs).toList());
        latency.put("oncepayMeanMs", round(clientMean));
        latency.put("chargeFunctionMeanMs", round(functionMean));
        latency.put("localRunMeanMs", round(clientMean - functionMean));
        long requests = steps.stream().mapToLong(Step::storeRequests).sum();
        if (requests > 0) {
            double storeMean = mean(steps.stream().map(Step::storeMs).toList());
            latency.put("storeMeanMs", round(storeMean));
            latency.put("dynaliteMeanMs", round(mean(steps.stream().map(Step::dynaliteMs).toList())));
            // Of that, dynalite's own work (as it reports it); the rest is the HTTP hop to it and the
            // wait for its one thread (busy with another request: the webhook's, a breaker request).
            if (steps.stream().allMatch(step -> step.dynaliteOwnMs() != null)) {
                latency.put("dynaliteOwnMeanMs", round(mean(steps.stream().map(Step::dynaliteOwnMs).toList())));
            }
            latency.put("storeRequestsPerCharge", round((double) requests / steps.size()));
            latency.put("chargeFunctionOwnMeanMs", round(functionMean - storeMean));
        }
        return latency;
    }

    // --- 4. queued charges ----------------------------------------------------------------------

    /** How often the bench reads the charge worker's sandbox while it waits for a queued charge's run. */
    private static final Duration WORKER_POLL = Duration.ofMillis(10);
    /** Longer than any charge worker's run of one message: the worker's timeout. */
    private static final Duration WORKER_WAIT = Duration.ofSeconds(DeploymentSettings.CHARGE_WORKER_TIMEOUT_SECONDS);

    /**
     * A queued charge as the client and the sandboxes saw it: its {@code 202}; from the {@code 202}
     * to the charge worker's answer for it (its run wrote the outcome just before); and the time each
     * sandbox spent on it: the charge sandbox on the {@code POST}, the worker on its run (null for a
     * sandbox that ran more or fewer invocations meanwhile).
     */
    private record QueuedStep(BenchRun.Answer accepted, String paymentId, double toOutcomeMs, Double chargeMs,
            Double workerMs) {
    }

    /**
     * Sends a charge with {@code Prefer: respond-async} and waits, reading the local run's sandbox
     * status (never the charge function, whose busy time is measured), until the charge worker's
     * sandbox has answered an invocation beyond {@code workerBefore}'s.
     */
    private QueuedStep queued(BenchRun run, String reference, BenchRun.SandboxStatus workerBefore) throws Exception {
        BenchRun.SandboxStatus chargeBefore = run.sandbox(DeploymentSettings.FUNCTION_CHARGE, 1);
        BenchRun.Answer accepted = run.queuedCharge(key(), reference);
        long acceptedAt = System.nanoTime();
        if (accepted.status() != 202) {
            throw new IOException("a queued charge was answered " + accepted.status() + " " + accepted.body());
        }
        BenchRun.SandboxStatus chargeAfter = run.sandbox(DeploymentSettings.FUNCTION_CHARGE, 1);
        long deadline = acceptedAt + WORKER_WAIT.toNanos();
        while (true) {
            BenchRun.SandboxStatus worker = run.sandbox(DeploymentSettings.FUNCTION_CHARGE_WORKER, 1);
            int ran = worker.generation() == workerBefore.generation()
                    ? worker.invocations() - workerBefore.invocations() : worker.invocations();
            if (ran > 0 && worker.state().equals("idle")) {
                return new QueuedStep(accepted, accepted.json().path("id").asText(),
                        (System.nanoTime() - acceptedAt) / 1e6, oneRun(chargeBefore, chargeAfter),
                        oneRun(workerBefore, worker));
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("the charge worker ran nothing within " + WORKER_WAIT.toSeconds() + " s of a 202: "
                        + worker);
            }
            Thread.sleep(WORKER_POLL.toMillis());
        }
    }

    private QueuedStep queued(BenchRun run, String reference) throws Exception {
        return queued(run, reference, run.sandbox(DeploymentSettings.FUNCTION_CHARGE_WORKER, 1));
    }

    /**
     * Queued charges beside charges in the request, 1 client, at the throughput phase's provider
     * latency: {@code queuedCharges} of each, alternating, so drift on a shared machine touches both
     * alike. The worker first serves {@code warmup} queued charges without provider latency, as warm
     * as the charge sandbox. Each queued payment's outcome is read once its worker has answered
     * ({@code GET}, not timed): a queued charge that did not succeed counts as a failure.
     */
    private void queuedCharges(BenchRun run) throws Exception {
        run.simFaults("{\"latencyMs\":0}");
        for (int i = 0; i < options.warmup(); i++) {
            queued(run, "bench_queued_warm_" + i);
        }
        run.awaitQuiet(Duration.ofSeconds(60));
        run.simFaults("{\"latencyMs\":" + options.providerLatency().toMillis() + "}");
        List<Double> accepted = new ArrayList<>();
        List<Double> toOutcome = new ArrayList<>();
        List<Double> inRequest = new ArrayList<>();
        List<Double> chargeSync = new ArrayList<>();
        List<Double> chargeQueued = new ArrayList<>();
        List<Double> worker = new ArrayList<>();
        int failures = 0;
        for (int i = 0; i < options.queuedCharges(); i++) {
            BenchRun.SandboxStatus before = run.sandbox(DeploymentSettings.FUNCTION_CHARGE, 1);
            BenchRun.Answer sync = run.charge(key(), "bench_in_request_" + i);
            Double syncRun = oneRun(before, run.sandbox(DeploymentSettings.FUNCTION_CHARGE, 1));
            QueuedStep q = queued(run, "bench_queued_" + i);
            boolean succeeded = run.payment(q.paymentId()).json().path("status").asText().equals("succeeded");
            if (sync.status() != 201 || !succeeded) {
                failures++;
                continue;
            }
            inRequest.add(sync.ms());
            accepted.add(q.accepted().ms());
            toOutcome.add(q.toOutcomeMs());
            if (syncRun != null && q.chargeMs() != null && q.workerMs() != null) {
                chargeSync.add(syncRun);
                chargeQueued.add(q.chargeMs());
                worker.add(q.workerMs());
            }
        }
        run.simFaults("{\"latencyMs\":0}");
        ObjectNode queued = figures.putObject("queuedCharges");
        queued.put("clients", 1);
        queued.put("providerLatencyMs", options.providerLatency().toMillis());
        queued.put("charges", accepted.size());
        queued.put("failures", failures);
        queued.set("accepted", percentiles(accepted));
        queued.set("toOutcome", percentiles(toOutcome));
        queued.set("inRequest", percentiles(inRequest));
        // Sandbox time per payment: the point of queuing is that the API no longer holds a charge
        // sandbox while the provider thinks; the worker holds one of its own instead.
        queued.put("timedPayments", chargeSync.size());
        ObjectNode held = queued.putObject("sandboxMsPerPayment");
        held.put("chargeInRequest", round(mean(chargeSync)));
        held.put("chargeQueued", round(mean(chargeQueued)));
        held.put("workerQueued", round(mean(worker)));
        out.printf("bench: queued charges, 1 client, provider latency %d ms: 202 p50 %s ms, 202 -> outcome p50 %s ms;"
                + " charge sandbox per payment %s ms in the request, %s ms queued (+ the worker's %s ms)%n",
                options.providerLatency().toMillis(), queued.path("accepted").path("p50Ms").asText(),
                queued.path("toOutcome").path("p50Ms").asText(), held.path("chargeInRequest").asText(),
                held.path("chargeQueued").asText(), held.path("workerQueued").asText());
    }

    // --- 5. throughput --------------------------------------------------------------------------

    /**
     * The early regime first: the local run's stand-ins for AWS's services (gateway, store proxy,
     * dynalite, the webhook sandbox) serve {@value #STAND_IN_WARMUP} charges per charge sandbox (at
     * most {@code warmup}), as AWS's services are warm; then every charge sandbox is replaced by a new
     * one, and each new one serves about {@code earlyWarmup} charges before the load. Then the warm
     * regime: each serves its share of {@code warmup} charges first, without provider latency so that
     * it takes seconds (a Lambda sandbox serves thousands in its life; the JIT compiles a method after
     * about 200 calls).
     */
    private void throughput(BenchRun run) throws Exception {
        run.simFaults("{\"latencyMs\":0}");
        warmUp(run, Math.min(STAND_IN_WARMUP, options.warmup()) * options.throughputSandboxes());
        run.awaitQuiet(Duration.ofSeconds(60));
        for (int slot = 1; slot <= options.throughputSandboxes(); slot++) {
            run.recycle(DeploymentSettings.FUNCTION_CHARGE, slot); // the next charge that needs it starts a new one
        }
        warmUp(run, options.earlyWarmup() * options.throughputSandboxes());
        figures.set("throughputEarly", throughputRegime(run, "early"));
        run.simFaults("{\"latencyMs\":0}");
        warmUp(run, Math.max(0, options.warmup() - options.earlyWarmup()) * options.throughputSandboxes());
        figures.set("throughput", throughputRegime(run, "warm"));
    }

    /** Charges per charge sandbox that warm the local run's stand-ins before the early regime's new sandboxes. */
    static final int STAND_IN_WARMUP = 50;

    /** Both sides of one regime at the provider's latency: charges per second, latency, CPU per charge. */
    private ObjectNode throughputRegime(BenchRun run, String regime) throws Exception {
        run.simFaults("{\"latencyMs\":" + options.providerLatency().toMillis() + "}");
        // Every charge sandbox has answered at the provider's latency before the clock starts.
        load(run, Duration.ofSeconds(Math.max(3, options.throughputDuration().toSeconds() / 4)), false);
        load(run, Duration.ofSeconds(Math.max(3, options.throughputDuration().toSeconds() / 4)), true);
        Side oncepaySide = measuredSide(run, false);
        Side directSide = measuredSide(run, true);
        ObjectNode oncepay = oncepaySide.figures();
        ObjectNode direct = directSide.figures();
        run.simFaults("{\"latencyMs\":0}");
        ObjectNode t = JSON.createObjectNode();
        t.put("clients", options.throughputClients());
        t.put("chargeSandboxes", options.throughputSandboxes());
        t.put("providerLatencyMs", options.providerLatency().toMillis());
        t.put("seconds", options.throughputDuration().toMillis() / 1000.0);
        t.set("oncepay", oncepay);
        t.set("direct", direct);
        t.put("ratio", Math.round(oncepay.path("perSecond").asDouble() / direct.path("perSecond").asDouble() * 1000)
                / 1000.0);
        t.put("addedP50Ms", round(oncepay.path("p50Ms").asDouble() - direct.path("p50Ms").asDouble()));
        ObjectNode cpu = t.putObject("cpu");
        cpu.set("oncepay", oncepaySide.cpu());
        cpu.set("direct", directSide.cpu());
        out.printf("bench: throughput, %s regime: oncepay %.1f/s, direct %.1f/s; the charge sandboxes had served %s charges"
                + " when the clock started%n", regime, oncepay.path("perSecond").asDouble(), direct.path("perSecond").asDouble(),
                oncepay.path("sandboxes").path("chargesBefore"));
        BenchReport.cpu(cpu).forEach(line -> out.println("bench:" + line));
        return t;
    }

    /** A measured side of the throughput phase: its load's figures, and the CPU each part spent per charge. */
    private record Side(ObjectNode figures, ObjectNode cpu) {
    }

    /**
     * The load of one side on a quiet run; the CPU is counted from its start until the run is quiet
     * again (the provider's webhooks for the charges are part of what they cost), per charge
     * answered (those that ended after the window too: their CPU is in it). The charge function's
     * DynamoDB requests in that time, per charge answered; and each charge sandbox: the charges it
     * had served when the clock started, those it served in the window, and its mean run.
     */
    private Side measuredSide(BenchRun run, boolean direct) throws Exception {
        run.awaitQuiet(Duration.ofSeconds(60));
        run.resetStoreStats(); // faults are off: only the counts and the store's timing start over
        List<BenchRun.SandboxStatus> before = run.sandboxes();
        BenchCpu.Sample start = run.cpuSample();
        Load load = load(run, options.throughputDuration(), direct);
        run.awaitQuiet(Duration.ofSeconds(60));
        BenchCpu.Sample end = run.cpuSample();
        ObjectNode figures = load.figures();
        JsonNode store = run.storeStats();
        ObjectNode dynamo = figures.putObject("dynamo");
        long requests = 0;
        for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) store.path("byCaller")
                .path(DeploymentSettings.FUNCTION_CHARGE)::fields) {
            dynamo.put(e.getKey(), e.getValue().asLong());
            requests += e.getValue().asLong();
        }
        dynamo.put("total", requests);
        figures.put("dynamoPerCharge", load.expectedAnswers() == 0 ? Double.NaN
                : Math.round(requests * 100.0 / load.expectedAnswers()) / 100.0);
        figures.set("sandboxes", chargeSandboxes(before, run.sandboxes()));
        return new Side(figures, BenchCpu.perUnit(start, end, load.expectedAnswers()));
    }

    /**
     * The charge sandboxes over a window: the charges each had served when it started (min–max), and
     * each one's charges in it and mean run (hand-out to answer); a sandbox replaced meanwhile is left out.
     */
    private static ObjectNode chargeSandboxes(List<BenchRun.SandboxStatus> before, List<BenchRun.SandboxStatus> after) {
        ObjectNode result = JSON.createObjectNode();
        ArrayNode each = result.putArray("each");
        List<Double> served = new ArrayList<>();
        double busy = 0;
        long invocations = 0;
        for (BenchRun.SandboxStatus b : before) {
            if (!b.function().equals(DeploymentSettings.FUNCTION_CHARGE)) {
                continue;
            }
            served.add((double) b.invocations());
            BenchRun.SandboxStatus a = after.stream().filter(s -> s.function().equals(b.function()) && s.slot() == b.slot())
                    .findFirst().orElse(null);
            if (a == null || a.generation() != b.generation()) {
                continue;
            }
            int charges = a.invocations() - b.invocations();
            double ms = a.busyMs() - b.busyMs();
            busy += ms;
            invocations += charges;
            each.addObject().put("slot", b.slot()).put("chargesBefore", b.invocations()).put("charges", charges)
                    .put("meanRunMs", charges == 0 ? null : round(ms / charges));
        }
        result.set("chargesBefore", range(served));
        result.put("meanRunMs", invocations == 0 ? Double.NaN : round(busy / invocations));
        return result;
    }

    /** {@code charges} charges through oncepay from the load's clients, spread over the charge sandboxes. */
    private void warmUp(BenchRun run, int charges) throws Exception {
        AtomicInteger left = new AtomicInteger(charges);
        ExecutorService clients = Executors.newFixedThreadPool(options.throughputClients());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < options.throughputClients(); c++) {
                running.add(clients.submit(() -> {
                    while (left.getAndDecrement() > 0) {
                        String key = key();
                        run.charge(key, "bench_warm_" + key);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            clients.shutdownNow();
        }
        out.printf("bench: %d warm-up charges over %d charge sandboxes%n", charges, options.throughputSandboxes());
    }

    /** The configured clients charge back to back for {@code duration}, through oncepay or direct. */
    private Load load(BenchRun run, Duration duration, boolean direct) throws Exception {
        return load(duration, direct ? 200 : 201, "charges", client -> {
            String key = key();
            return direct ? run.directCharge(key, "bench_load_direct_" + key) : run.charge(key, "bench_load_" + key);
        });
    }

    /** One request of a client of a load; {@code client} numbers the clients from 0. */
    private interface ClientRequest {
        BenchRun.Answer send(int client) throws Exception;
    }

    /**
     * @param figures the answers {@code expected} in the window (percentiles, {@code <counted>},
     *        {@code perSecond}) and the other answers by status
     * @param expectedAnswers every {@code expected} answer, those after the window too
     */
    private record Load(ObjectNode figures, long expectedAnswers) {
    }

    /** The configured clients send requests back to back for {@code duration}; what completed in it counts. */
    private Load load(Duration duration, int expected, String counted, ClientRequest request) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        Map<Integer, Integer> failures = new ConcurrentSkipListMap<>();
        AtomicLong expectedAnswers = new AtomicLong();
        ExecutorService clients = Executors.newFixedThreadPool(options.throughputClients());
        long started = System.nanoTime();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < options.throughputClients(); c++) {
                int client = c;
                running.add(clients.submit(() -> {
                    while (System.nanoTime() < end) {
                        BenchRun.Answer a = request.send(client);
                        if (a.status() == expected) {
                            expectedAnswers.incrementAndGet();
                        }
                        if (System.nanoTime() > end) {
                            break; // finished after the window: not counted
                        }
                        if (a.status() == expected) {
                            latencies.add(a.ms());
                        } else {
                            failures.merge(a.status(), 1, Integer::sum);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            clients.shutdownNow();
        }
        double seconds = Math.min((System.nanoTime() - started) / 1e9, duration.toMillis() / 1000.0);
        ObjectNode result = percentiles(latencies);
        result.put(counted, latencies.size());
        result.put("failures", failures.values().stream().mapToInt(Integer::intValue).sum());
        ObjectNode byStatus = result.putObject("failuresByStatus");
        failures.forEach((status, n) -> byStatus.put(Integer.toString(status), n));
        result.put("perSecond", Math.round(latencies.size() / seconds * 10) / 10.0);
        return new Load(result, expectedAnswers.get());
    }

    // --- 6. requests per charge -----------------------------------------------------------------

    private void requestsPerCharge(BenchRun run) throws Exception {
        ObjectNode costs = figures.putObject("requestsPerCharge");
        run.awaitQuiet(Duration.ofSeconds(60));
        String key = key();
        Request sameKey = () -> run.charge(key, "bench_cost_first"); // the first charge, then its replays
        // A sandbox trusts its copy of the fleet breaker for 1 s, and every charge request, replays
        // included, passes the breaker first: each figure once with the period's request due, once within it.
        Thread.sleep(BREAKER_CACHE_EXPIRED.toMillis());
        costs.set("firstCharge", measure(run, sameKey, 201));
        sameKey.send(); // the breaker copy is fresh now (a replay sends nothing to the provider: no webhook)
        costs.set("firstChargeBreakerCached", measure(run, () -> run.charge(key(), "bench_cost_cached"), 201));
        sameKey.send();
        costs.set("replayBreakerCached", measure(run, sameKey, 201));
        Thread.sleep(BREAKER_CACHE_EXPIRED.toMillis());
        costs.set("replay", measure(run, sameKey, 201));
        // A queued charge: the request's writes and the charge worker's run, once the worker has answered.
        costs.set("queuedCharge", measure(run, () -> queued(run, "bench_cost_queued").accepted(), 202));
        out.printf("bench: DynamoDB requests: first charge %s, replay %s%n",
                costs.path("firstCharge").path("dynamo"), costs.path("replay").path("dynamo"));
    }

    private interface Request {
        BenchRun.Answer send() throws Exception;
    }

    /** The DynamoDB requests of each function and the provider calls that one request caused, once all is quiet. */
    private ObjectNode measure(BenchRun run, Request request, int status) throws Exception {
        run.resetStoreStats();
        JsonNode sim0 = run.simStats();
        BenchRun.Answer answer = request.send();
        if (answer.status() != status) {
            throw new IOException("expected " + status + ", got " + answer.status() + " " + answer.body());
        }
        run.awaitQuiet(Duration.ofSeconds(30)); // the provider's webhook for it, if any, has been handled
        JsonNode store = run.storeStats();
        JsonNode sim1 = run.simStats();
        ObjectNode r = JSON.createObjectNode();
        r.put("replayed", answer.replayed());
        ObjectNode dynamo = r.putObject("dynamo");
        for (String function : FUNCTIONS) {
            JsonNode counts = store.path("byCaller").path(function);
            ObjectNode node = dynamo.putObject(function);
            counts.fields().forEachRemaining(e -> node.put(e.getKey(), e.getValue().asLong()));
            long total = 0;
            for (JsonNode n : counts) {
                total += n.asLong();
            }
            node.put("total", total);
        }
        r.put("providerCharges", sim1.path("chargeRequests").asInt() - sim0.path("chargeRequests").asInt());
        r.put("providerLookups", sim1.path("lookupRequests").asInt() - sim0.path("lookupRequests").asInt());
        return r;
    }

    // --- 7. wallets: requests per operation, the hot wallet ---------------------------------------

    /** The most one credit may carry (the amount limit payments have too). */
    static final long MAX_CREDIT = 99_999_999L;
    /**
     * What {@link #requestsPerWalletOperation} counts: a new wallet's first credit, a credit, a
     * debit and its replay, a debit the balance does not cover ({@code 402}) and its replay, a GET.
     */
    static final List<String> WALLET_OPERATIONS = List.of("firstCredit", "credit", "debit", "debitReplay",
            "insufficientFunds", "insufficientFundsReplay", "get");
    /** Wallets of the contrast load: the same clients spread over this many wallets. */
    static final int SPREAD_WALLETS = 8;

    private void requestsPerWalletOperation(BenchRun run) throws Exception {
        ObjectNode costs = figures.putObject("requestsPerWalletOperation");
        run.awaitQuiet(Duration.ofSeconds(60));
        String wallet = "wal_cost_" + runId;
        costs.set("firstCredit", measure(run, () -> run.wallet("credits", wallet, key(), 1000, "bench_credit_first"), 201));
        costs.set("credit", measure(run, () -> run.wallet("credits", wallet, key(), 1000, "bench_credit"), 201));
        String debitKey = key();
        Request debit = () -> run.wallet("debits", wallet, debitKey, 700, "bench_debit");
        costs.set("debit", measure(run, debit, 201));
        costs.set("debitReplay", measure(run, debit, 201));
        String refusedKey = key();
        Request refused = () -> run.wallet("debits", wallet, refusedKey, MAX_CREDIT, "bench_debit_refused");
        costs.set("insufficientFunds", measure(run, refused, 402));
        costs.set("insufficientFundsReplay", measure(run, refused, 402));
        costs.set("get", measure(run, () -> run.wallet(wallet), 200));
        out.printf("bench: DynamoDB requests: credit %s, debit %s, replay %s, 402 %s, GET %s%n",
                total(costs, "credit"), total(costs, "debit"), total(costs, "debitReplay"),
                total(costs, "insufficientFunds"), total(costs, "get"));
    }

    private static long total(JsonNode costs, String operation) {
        return costs.path(operation).path("dynamo").path(DeploymentSettings.FUNCTION_CHARGE).path("total").asLong();
    }

    /**
     * The throughput run's clients debit 1 (minor unit) each, back to back, under distinct keys: first
     * all on ONE wallet (one DynamoDB item takes every conditional update), then spread over
     * {@link #SPREAD_WALLETS} wallets. Each wallet's balance covers every debit, so every answer
     * should be 201; the balance read back afterwards shows none was lost or applied twice.
     */
    private void hotWallet(BenchRun run) throws Exception {
        run.simFaults("{\"latencyMs\":0}");
        List<String> wallets = new ArrayList<>();
        for (int w = 0; w < SPREAD_WALLETS; w++) {
            String wallet = "wal_hot_" + runId + "_" + w;
            BenchRun.Answer credited = run.wallet("credits", wallet, key(), MAX_CREDIT, "bench_hot_credit");
            if (credited.status() != 201) {
                throw new IOException("credit of " + wallet + ": " + credited.status() + " " + credited.body());
            }
            wallets.add(wallet);
        }
        // Warm: every charge sandbox has served wallet requests before the clock starts.
        debits(run, wallets, Duration.ofSeconds(Math.max(2, options.hotWalletDuration().toSeconds() / 4)));
        run.awaitQuiet(Duration.ofSeconds(60));
        ObjectNode hot = figures.putObject("hotWallet");
        hot.put("clients", options.throughputClients());
        hot.put("chargeSandboxes", options.throughputSandboxes());
        hot.put("seconds", options.hotWalletDuration().toMillis() / 1000.0);
        hot.put("debitAmount", 1);
        hot.set("oneWallet", debits(run, wallets.subList(0, 1), options.hotWalletDuration()));
        run.awaitQuiet(Duration.ofSeconds(60));
        hot.set("spread", debits(run, wallets, options.hotWalletDuration()));
        // What the load cost beyond a lone debit's requests: the prunes of the wallet's markers (a
        // BatchGetItem and an UpdateItem each time 32 have gathered) and writes that lost a race.
        long uncontended = total(figures.path("requestsPerWalletOperation"), "debit");
        for (String side : List.of("oneWallet", "spread")) {
            ObjectNode s = (ObjectNode) hot.path(side);
            s.put("beyondUncontendedPerDebit", round(s.path("dynamoPerDebit").asDouble() - uncontended));
        }
        long debited = 0;
        for (String wallet : wallets) {
            JsonNode w = run.wallet(wallet).json();
            debited += MAX_CREDIT - w.path("balance").asLong();
        }
        long answered = debitsAnswered.get();
        hot.put("debitsAnswered201", answered);
        hot.put("balanceDebited", debited);
        out.printf("bench: hot wallet: one wallet %.1f debits/s, %d wallets %.1f debits/s; DynamoDB requests per debit %s"
                + " and %s; balances debited %d for %d debits answered 201%n",
                hot.path("oneWallet").path("perSecond").asDouble(), SPREAD_WALLETS,
                hot.path("spread").path("perSecond").asDouble(), hot.path("oneWallet").path("dynamoPerDebit").asText(),
                hot.path("spread").path("dynamoPerDebit").asText(), debited, answered);
    }

    /** The clients debit {@code wallets} (client c the wallet c mod n) for {@code duration}; what completed in it counts. */
    private ObjectNode debits(BenchRun run, List<String> wallets, Duration duration) throws Exception {
        run.resetStoreStats();
        Load load = load(duration, 201, "debits",
                client -> run.wallet("debits", wallets.get(client % wallets.size()), key(), 1, "bench_hot_debit"));
        run.awaitQuiet(Duration.ofSeconds(60));
        debitsAnswered.addAndGet(load.expectedAnswers());
        JsonNode store = run.storeStats().path("byCaller").path(DeploymentSettings.FUNCTION_CHARGE);
        ObjectNode result = load.figures();
        result.put("wallets", wallets.size());
        // Every request the charge function sent while the clients ran, over every debit it answered
        // 201 (those that ended after the window too): the markers' prunes and conditional updates
        // that lost a race and were tried again show here as more than a lone debit's count.
        ObjectNode dynamo = result.putObject("dynamo");
        long total = 0;
        for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) store::fields) {
            dynamo.put(e.getKey(), e.getValue().asLong());
            total += e.getValue().asLong();
        }
        dynamo.put("total", total);
        result.put("dynamoPerDebit", load.expectedAnswers() == 0 ? Double.NaN
                : Math.round(total * 100.0 / load.expectedAnswers()) / 100.0);
        return result;
    }

    // --- 8. RSS ---------------------------------------------------------------------------------

    private void rss(BenchRun run, String phase) throws Exception {
        ArrayNode rss = figures.has("rss") ? (ArrayNode) figures.get("rss") : figures.putArray("rss");
        for (BenchRun.SandboxStatus s : run.sandboxes()) {
            rss.addObject().put("run", phase).put("function", s.function()).put("slot", s.slot()).put("pid", s.pid())
                    .put("invocations", s.invocations()).put("rssMb", Math.round(BenchRun.rssMb(s.pid()) * 10) / 10.0);
        }
    }

    // --- figures --------------------------------------------------------------------------------

    private String key() {
        return "bench-" + runId + "-" + keys.incrementAndGet();
    }

    static double round(double ms) {
        return Math.round(ms * 10) / 10.0;
    }

    /** Nearest rank; NaN without samples. */
    static double percentile(List<Double> samples, double p) {
        if (samples.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(samples);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    private static ObjectNode percentiles(List<Double> samples) {
        List<Double> copy;
        synchronized (samples) {
            copy = List.copyOf(samples);
        }
        return JSON.createObjectNode().put("p50Ms", round(percentile(copy, 50))).put("p99Ms", round(percentile(copy, 99)));
    }

    private static double mean(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    /** Median and range of a few repeats. */
    private static ObjectNode range(List<Double> values) {
        return JSON.createObjectNode().put("median", round(percentile(values, 50)))
                .put("min", round(values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN)))
                .put("max", round(values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)));
    }
}
