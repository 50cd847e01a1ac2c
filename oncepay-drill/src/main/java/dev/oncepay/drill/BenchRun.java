package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.local.LocalRun;
import dev.oncepay.sim.WebhookSignature;
import dev.oncepay.sim.WebhookTarget;
import dev.oncepay.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One local run for the benchmark, as {@code run-local.sh} starts it (a JVM of its own, production
 * timers, no reconcile schedule: the benchmark invokes reconcile itself), and the requests the
 * benchmark sends: charges through the gateway and straight to the simulator, signed webhooks,
 * and the local run's own {@code /_local/} routes, which report each sandbox's init and first
 * invocation as the run measured them.
 */
final class BenchRun implements AutoCloseable {
    static final String TENANT = "merchant-a";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** In dynalite's command line: {@code LocalDynamo} starts it as {@code node -e <wrapper> .../node_modules/dynalite/cli.js}. */
    private static final String DYNALITE_CLI = "node_modules/dynalite/cli.js";

    final String api;
    final String sim;
    final String store;
    final HttpClient http;
    private final LocalRunProcess run;
    private final int apiPort;

    /** A sandbox as {@code GET /_local/sandboxes} shows it. */
    record SandboxStatus(String function, int slot, int generation, long pid, String state, double ageSeconds,
            Double initMs, Double firstInvocationMs, int invocations, double busyMs) {
        static SandboxStatus of(JsonNode n) {
            return new SandboxStatus(n.path("function").asText(), n.path("slot").asInt(), n.path("generation").asInt(),
                    n.path("pid").asLong(), n.path("state").asText(), n.path("ageSeconds").asDouble(),
                    n.path("initMs").isNumber() ? n.path("initMs").asDouble() : null,
                    n.path("firstInvocationMs").isNumber() ? n.path("firstInvocationMs").asDouble() : null,
                    n.path("invocations").asInt(), n.path("busyMs").asDouble());
        }
    }

    /** An answer and how long it took, as the client saw it. */
    record Answer(int status, String body, double ms, boolean replayed) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }

    private BenchRun(LocalRunProcess run, int apiPort, String api, String sim, String store) {
        this.run = run;
        this.apiPort = apiPort;
        this.api = api;
        this.sim = sim;
        this.store = store;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(3)).build();
    }

    /**
     * Starts a local run with {@code chargeSandboxes} charge sandboxes and one of each other function
     * (one charge-worker sandbox, whatever its queue's pollers: the bench queues one charge at a time),
     * primed at init if the options say so.
     */
    static BenchRun start(BenchOptions options, int chargeSandboxes, Path log) throws Exception {
        List<Integer> ports = FreePorts.distinct(5);
        List<String> args = new ArrayList<>(List.of(
                "--app", options.app().toString(),
                "--work-dir", options.reportDir().resolve("run").toString(),
                "--api-port", Integer.toString(ports.get(0)),
                "--sim-port", Integer.toString(ports.get(1)),
                "--dynamo-port", Integer.toString(ports.get(2)),
                "--dynalite-port", Integer.toString(ports.get(3)),
                "--queue-port", Integer.toString(ports.get(4)),
                "--sandboxes", "charge=" + chargeSandboxes + ",webhook=1,reconcile=1,charge-worker=1",
                "--reconcile-every", "off",
                // The payment path alone: no endpoints, so no write relays an event.
                "--no-events",
                "--table", "oncepay-bench"));
        if (options.primed()) {
            args.addAll(List.of("--env", DeploymentSettings.ENV_PRIMING_AT_INIT + "=true"));
        }
        LocalRunProcess process = LocalRunProcess.start(args, log);
        BenchRun run = new BenchRun(process, ports.get(0), "http://127.0.0.1:" + ports.get(0), "http://127.0.0.1:" + ports.get(1),
                "http://127.0.0.1:" + ports.get(2));
        try {
            if (!process.awaitReady(300)) {
                throw new IOException("the local run was not ready within 300 s; see " + log);
            }
            run.awaitQuiet(Duration.ofSeconds(60));
            return run;
        } catch (Exception e) {
            run.close();
            throw e;
        }
    }

    // --- the local run's own view ---------------------------------------------------------------

    List<SandboxStatus> sandboxes() throws IOException, InterruptedException {
        List<SandboxStatus> result = new ArrayList<>();
        for (JsonNode n : JSON.readTree(get(api + "/_local/sandboxes").body()).path("sandboxes")) {
            result.add(SandboxStatus.of(n));
        }
        return result;
    }

    SandboxStatus sandbox(String function, int slot) throws IOException, InterruptedException {
        return sandboxes().stream().filter(s -> s.function().equals(function) && s.slot() == slot).findFirst()
                .orElseThrow(() -> new IOException("no sandbox " + function + "#" + slot));
    }

    /** Ends the sandbox's process and leaves it cold: its next invocation pays a cold start. */
    void recycle(String function, int slot) throws IOException, InterruptedException {
        Answer a = post(api + "/_local/sandboxes/" + function + "/" + slot + "/recycle", "", List.of());
        if (a.status() != 200) {
            throw new IOException("cannot recycle " + function + "#" + slot + ": " + a.status() + " " + a.body());
        }
    }

    /** Sends the function the EventBridge schedule's event, as the schedule would; waits for its result. */
    Answer schedule(String function) throws IOException, InterruptedException {
        return post(api + "/_local/schedule/" + function, "", List.of());
    }

    /**
     * Every sandbox ready and idle, twice in a row 200 ms apart (a provider webhook that follows a
     * charge has had time to arrive and be handled).
     */
    void awaitQuiet(Duration within) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        int quiet = 0;
        while (quiet < 2) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the local run did not settle within " + within.toSeconds() + " s: " + sandboxes());
            }
            Thread.sleep(200);
            quiet = sandboxes().stream().allMatch(s -> s.state().equals("idle")) ? quiet + 1 : 0;
        }
    }

    /** The CPU every process of the run (and each thread of the local-run JVM and of the charge sandboxes) has spent so far. */
    BenchCpu.Sample cpuSample() throws IOException, InterruptedException {
        Map<Long, BenchCpu.Part> processes = new HashMap<>();
        for (SandboxStatus s : sandboxes()) {
            if (s.pid() > 0) {
                processes.put(s.pid(), s.function().equals(DeploymentSettings.FUNCTION_CHARGE)
                        ? BenchCpu.Part.CHARGE_SANDBOXES : BenchCpu.Part.OTHER_SANDBOXES);
            }
        }
        ProcessHandle localRun = localRunJvm();
        localRun.descendants().filter(p -> commandLine(p).contains(DYNALITE_CLI))
                .forEach(p -> processes.put(p.pid(), BenchCpu.Part.DYNALITE));
        processes.put(localRun.pid(), BenchCpu.Part.LOCAL_RUN);
        processes.put(ProcessHandle.current().pid(), BenchCpu.Part.BENCH);
        return BenchCpu.Sample.take(processes);
    }

    /** The local run's own JVM (gateway, Runtime APIs, store fault proxy, simulator): this JVM's child with its arguments. */
    private ProcessHandle localRunJvm() throws IOException {
        String port = " --api-port " + apiPort + " ";
        return ProcessHandle.current().children()
                .filter(p -> commandLine(p).contains(" " + LocalRun.class.getName() + " ") && commandLine(p).contains(port))
                .findFirst().orElseThrow(() -> new IOException("the local run's JVM is not among this JVM's children"));
    }

    /** From /proc, whole: a JVM's command line with its class path is long. Empty when it has ended. */
    private static String commandLine(ProcessHandle p) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
                    StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException gone) {
            return "";
        }
    }

    /** VmRSS of a process in MB, or -1 when it is gone (or this is not Linux). */
    static double rssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (NoSuchFileException gone) {
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    // --- requests -------------------------------------------------------------------------------

    static String chargeBody(String reference) {
        return "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"" + reference + "\"}";
    }

    /** {@code POST /payments} through the gateway with a fresh (or the given) key. */
    Answer charge(String key, String reference) throws IOException, InterruptedException {
        return post(api + "/payments", chargeBody(reference),
                List.of("Idempotency-Key", key, "X-Tenant-Id", TENANT, "Content-Type", "application/json"));
    }

    /** {@code POST /payments} with {@code Prefer: respond-async}: its 202 once the charge is on its queue. */
    Answer queuedCharge(String key, String reference) throws IOException, InterruptedException {
        return post(api + "/payments", chargeBody(reference), List.of("Idempotency-Key", key, "X-Tenant-Id", TENANT,
                "Content-Type", "application/json", "Prefer", GoodClient.PREFER_ASYNC));
    }

    /** {@code GET /payments/{id}}. */
    Answer payment(String paymentId) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(api + "/payments/" + paymentId)).timeout(Duration.ofSeconds(60))
                .header("X-Tenant-Id", TENANT).GET().build());
    }

    /**
     * {@code POST /wallets/{walletId}/credits} or {@code .../debits} through the gateway.
     *
     * @param operation {@code credits} or {@code debits}
     */
    Answer wallet(String operation, String walletId, String key, long amount, String reference)
            throws IOException, InterruptedException {
        return post(api + "/wallets/" + walletId + "/" + operation,
                "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"" + reference + "\"}",
                List.of("Idempotency-Key", key, "X-Tenant-Id", TENANT, "Content-Type", "application/json"));
    }

    /** {@code GET /wallets/{walletId}}: its balance and the first page of its entries. */
    Answer wallet(String walletId) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(api + "/wallets/" + walletId)).timeout(Duration.ofSeconds(60))
                .header("X-Tenant-Id", TENANT).GET().build());
    }

    /** The simulator's own charge endpoint, the same body, as a merchant without oncepay would call it. */
    Answer directCharge(String key, String reference) throws IOException, InterruptedException {
        return post(sim + "/v1/charges", chargeBody(reference),
                List.of("Idempotency-Key", key, "Content-Type", "application/json"));
    }

    /** A {@code charge.succeeded} event for a payment, signed as the simulator signs (its secret, its scheme). */
    Answer webhook(String paymentId, String chargeId) throws IOException, InterruptedException {
        String body = JSON.createObjectNode()
                .put("id", "evt_bench_" + UUID.randomUUID().toString().replace("-", ""))
                .put("type", "charge.succeeded")
                .put("created", Instant.now().getEpochSecond())
                .set("data", JSON.createObjectNode().put("chargeId", chargeId).put("reference", paymentId)
                        .put("status", "succeeded").put("amount", 4200).put("currency", "EUR"))
                .toString();
        String signature = WebhookSignature.header(WebhookTarget.DEFAULT_SECRET, body, Instant.now().getEpochSecond());
        return post(api + "/webhooks/" + WebhookTarget.DEFAULT_PROVIDER_ID, body,
                List.of(WebhookSignature.HEADER, signature, "Content-Type", "application/json"));
    }

    JsonNode storeStats() throws IOException, InterruptedException {
        return JSON.readTree(get(store + "/_store/stats").body());
    }

    void resetStoreStats() throws IOException, InterruptedException {
        post(store + "/_store/reset", "", List.of());
    }

    JsonNode simStats() throws IOException, InterruptedException {
        return JSON.readTree(get(sim + "/_sim/stats").body());
    }

    void simFaults(String json) throws IOException, InterruptedException {
        Answer a = post(sim + "/_sim/faults", json, List.of("Content-Type", "application/json"));
        if (a.status() != 200) {
            throw new IOException("the simulator refused " + json + ": " + a.body());
        }
    }

    Answer post(String url, String body, List<String> headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.size(); i += 2) {
            b.header(headers.get(i), headers.get(i + 1));
        }
        return send(b.build());
    }

    private Answer get(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).GET().build());
    }

    private Answer send(HttpRequest request) throws IOException, InterruptedException {
        long started = System.nanoTime();
        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body(), (System.nanoTime() - started) / 1e6,
                r.headers().firstValue("Idempotent-Replayed").map("true"::equals).orElse(false));
    }

    @Override
    public void close() {
        run.close();
    }
}
