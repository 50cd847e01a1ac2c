package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The local run end to end, as {@code run-local.sh} starts it: the same Java entry point in its own
 * JVM on free ports with the real Lambda package, a payment over plain HTTP, its replay, a read,
 * a tenant charged through the simulator's Stripe mode (a card that pays, one whose customer must
 * authenticate first),
 * a store outage injected through the fault proxy on the DynamoDB port, the simulator's webhook
 * reaching the webhook function, scheduled events reaching reconcile, and SIGTERM — after which
 * every process the run started is gone.
 *
 * <p>Runs in {@code ./mvnw verify} after the functions module's {@code package} phase, on the
 * {@code function.zip} it built ({@link LambdaPackage}).
 */
@Tag("local-run")
@Tag("slow")
class LocalRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration READY_WITHIN = Duration.ofSeconds(150);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    @Timeout(300)
    void startsTakesAPaymentReplaysItAndStopsEverythingItStarted() throws Exception {
        Path root = LocalRun.projectRoot();
        long t0 = System.nanoTime();
        Path app = LambdaPackage.built();
        long packaged = System.nanoTime();

        int apiPort = freePort();
        int simPort = freePort();
        int storePort = freePort();
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager",
                "-cp", testClasspath(),
                LocalRun.class.getName(),
                "--app", app.toString(),
                "--work-dir", Path.of("target/local-run-test/run").toAbsolutePath().toString(),
                "--api-port", Integer.toString(apiPort),
                "--sim-port", Integer.toString(simPort),
                "--dynamo-port", Integer.toString(storePort),
                "--reconcile-every", "2s",
                "--tenant-provider", "merchant-s=stripe",
                "--parent-pid", Long.toString(ProcessHandle.current().pid()));
        Process run = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
        List<String> output = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch ready = new CountDownLatch(1);
        CountDownLatch stoppedLine = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(run.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    output.add(line);
                    System.out.println("local-run | " + line);
                    if (line.contains(LocalRun.READY)) {
                        ready.countDown();
                    }
                    if (line.endsWith("[local-run] stopped")) {
                        stoppedLine.countDown();
                    }
                }
            } catch (IOException ended) {
                // the run's output closed
            }
        }, "local-run-output");
        reader.setDaemon(true);
        reader.start();

        try {
            if (!ready.await(READY_WITHIN.toSeconds(), TimeUnit.SECONDS)) {
                fail("the local run was not ready within " + READY_WITHIN.toSeconds() + " s (alive: " + run.isAlive() + ")");
            }
            long started = System.nanoTime();
            String readyLine = output.stream().filter(l -> l.contains(LocalRun.READY)).findFirst().orElseThrow();
            assertTrue(readyLine.contains("charge 2/2 ready, webhook 1/1 ready, reconcile 1/1 ready"), readyLine);
            String api = "http://127.0.0.1:" + apiPort;
            String body = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_1\"}";

            HttpResponse<String> first = send(payment(api, "local-run-test-1", body));
            assertEquals(201, first.statusCode(), first.body());
            JsonNode payment = JSON.readTree(first.body());
            assertEquals("succeeded", payment.get("status").asText());
            assertEquals(4200, payment.get("amount").asInt());
            assertEquals("order_1", payment.get("reference").asText());
            String id = payment.get("id").asText();
            assertEquals("/payments/" + id, first.headers().firstValue("Location").orElse(null));
            assertFalse(first.headers().firstValue("Idempotent-Replayed").isPresent());

            HttpResponse<String> replay = send(payment(api, "local-run-test-1", body));
            assertEquals(201, replay.statusCode());
            assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
            assertEquals(first.body(), replay.body(), "the replay is the stored answer, byte for byte");

            // The documented DynamoDB port is the store fault proxy's: an outage set there reaches the
            // functions (503 store-unavailable before any provider call, nothing charged), and a reset
            // heals the store.
            String store = "http://127.0.0.1:" + storePort;
            String sim = "http://127.0.0.1:" + simPort;
            int charges = JSON.readTree(send(HttpRequest.newBuilder(URI.create(sim + "/_sim/ledger")).GET()).body())
                    .get("charges").size();
            HttpResponse<String> down = send(HttpRequest.newBuilder(URI.create(store + "/_store/faults"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"outage\":true}")));
            assertEquals(200, down.statusCode(), down.body());
            assertTrue(JSON.readTree(down.body()).get("outage").asBoolean(), down.body());
            String other = "{\"amount\":990,\"currency\":\"EUR\",\"reference\":\"order_2\"}";
            HttpResponse<String> duringOutage = send(payment(api, "local-run-test-2", other));
            assertEquals(503, duringOutage.statusCode(), duringOutage.body());
            assertTrue(JSON.readTree(duringOutage.body()).get("type").asText().endsWith("/store-unavailable"),
                    duringOutage.body());
            assertTrue(duringOutage.headers().firstValue("Retry-After").isPresent());
            assertEquals(charges, JSON.readTree(send(HttpRequest.newBuilder(URI.create(sim + "/_sim/ledger")).GET())
                    .body()).get("charges").size(), "nothing charged while the store is down");
            HttpResponse<String> healed = send(HttpRequest.newBuilder(URI.create(store + "/_store/reset"))
                    .POST(HttpRequest.BodyPublishers.noBody()));
            assertEquals(200, healed.statusCode(), healed.body());
            assertFalse(JSON.readTree(send(HttpRequest.newBuilder(URI.create(store + "/_store/faults")).GET()).body())
                    .get("outage").asBoolean());
            assertEquals(201, send(payment(api, "local-run-test-2", other)).statusCode(), "the same key, store healthy");

            HttpResponse<String> read = send(HttpRequest.newBuilder(URI.create(api + "/payments/" + id))
                    .header("X-Tenant-Id", "merchant-a").GET());
            assertEquals(200, read.statusCode(), read.body());
            assertEquals(id, JSON.readTree(read.body()).get("id").asText());

            HttpResponse<String> otherTenant = send(HttpRequest.newBuilder(URI.create(api + "/payments/" + id))
                    .header("X-Tenant-Id", "merchant-b").GET());
            assertEquals(404, otherTenant.statusCode(), "tenants are apart");

            // A tenant on Stripe (an account of its own on the simulator's Stripe mode): a card that
            // pays, and one that waits for its customer, who authenticates; Stripe's event settles it.
            String visa = "{\"amount\":1500,\"currency\":\"EUR\",\"reference\":\"order_s1\",\"paymentMethod\":\"pm_card_visa\"}";
            HttpResponse<String> onStripe = send(payment(api, "merchant-s", "local-run-test-s1", visa));
            assertEquals(201, onStripe.statusCode(), onStripe.body());
            String stripePayment = JSON.readTree(onStripe.body()).get("id").asText();
            assertTrue(JSON.readTree(onStripe.body()).get("providerPaymentId").asText().startsWith("pi_"), onStripe.body());
            assertTrue(send(HttpRequest.newBuilder(URI.create(sim + "/_sim/ledger")).GET()).body()
                    .contains("\"reference\":\"" + stripePayment + "\""), "charged through the Stripe API");
            String threeDs = visa.replace("order_s1", "order_s2").replace("pm_card_visa", "pm_card_authenticationRequired");
            HttpResponse<String> awaiting = send(payment(api, "merchant-s", "local-run-test-s2", threeDs));
            assertEquals(202, awaiting.statusCode(), awaiting.body());
            JsonNode action = JSON.readTree(awaiting.body());
            assertEquals("requires_action", action.get("status").asText(), awaiting.body());
            assertTrue(action.get("clientSecret").asText().startsWith(action.get("providerPaymentId").asText() + "_secret_"),
                    awaiting.body());
            String authenticated = action.get("id").asText();
            HttpResponse<String> customer = send(HttpRequest.newBuilder(URI.create(sim + "/_sim/stripe/authenticate"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"reference\":\"" + authenticated + "\",\"approved\":true}")));
            assertEquals(200, customer.statusCode(), customer.body());
            awaitStatus(api, "merchant-s", authenticated, "succeeded", Duration.ofSeconds(30));
            awaitLine(output, "POST /webhooks/stripe -> webhook#1 200", Duration.ofSeconds(30));

            // The simulator's signed webhook for that charge went through the gateway to the webhook
            // function (200: signature valid), and scheduled events reached reconcile.
            awaitLine(output, "POST /webhooks/sim -> webhook#1 200", Duration.ofSeconds(30));
            awaitLine(output, "rule/oncepay-reconcile -> reconcile#1 (", Duration.ofSeconds(30));
            long requests = System.nanoTime();

            // Everything the run started, seen from the outside before it stops.
            List<ProcessHandle> children = run.descendants().toList();
            assertTrue(children.stream().anyMatch(p -> commandOf(p).contains("dynalite")), "dynalite runs: " + describe(children));
            long sandboxes = children.stream().filter(p -> commandOf(p).contains(SandboxMain.class.getName())).count();
            assertTrue(sandboxes >= 2, "at least the two charge sandboxes run: " + describe(children));

            // SIGTERM, as `kill` or run-local.sh's Ctrl-C trap sends it (Process.destroy() would also
            // close our end of its output, and we want to see it stop).
            run.toHandle().destroy();
            assertTrue(run.waitFor(30, TimeUnit.SECONDS), "the local run ends on SIGTERM");
            assertTrue(stoppedLine.await(5, TimeUnit.SECONDS), "it stopped its parts in order");
            for (ProcessHandle child : children) {
                child.onExit().get(10, TimeUnit.SECONDS);
                assertFalse(child.isAlive(), "left running: " + child.pid() + " " + commandOf(child));
            }
            long stopped = System.nanoTime();
            assertNotNull(app);
            System.out.printf(Locale.ROOT, "LocalRunTest timings: package %.1f s (%s), start to ready %.1f s, "
                    + "requests %.1f s, stop %.1f s%n", (packaged - t0) / 1e9, app, (started - packaged) / 1e9,
                    (requests - started) / 1e9, (stopped - requests) / 1e9);
        } finally {
            if (run.isAlive()) {
                run.descendants().forEach(ProcessHandle::destroyForcibly);
                run.destroyForcibly();
            }
        }
    }

    private static void awaitLine(List<String> output, String fragment, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            synchronized (output) {
                if (output.stream().anyMatch(l -> l.contains(fragment))) {
                    return;
                }
            }
            Thread.sleep(100);
        }
        fail("no line with '" + fragment + "' within " + within.toSeconds() + " s");
    }

    /** Polls {@code GET /payments/{id}} until it says {@code status}. */
    private void awaitStatus(String api, String tenant, String id, String status, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            last = send(HttpRequest.newBuilder(URI.create(api + "/payments/" + id)).header("X-Tenant-Id", tenant).GET())
                    .body();
            if (status.equals(JSON.readTree(last).path("status").asText())) {
                return;
            }
            Thread.sleep(200);
        }
        fail("payment " + id + " did not become " + status + " within " + within.toSeconds() + " s: " + last);
    }

    private static HttpRequest.Builder payment(String api, String key, String body) {
        return payment(api, "merchant-a", key, body);
    }

    private static HttpRequest.Builder payment(String api, String tenant, String key, String body) {
        return HttpRequest.newBuilder(URI.create(api + "/payments"))
                .header("Idempotency-Key", key)
                .header("X-Tenant-Id", tenant)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Surefire may hand the test JVM a manifest-only jar; the real test classpath is in its own property. */
    private static String testClasspath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private static String commandOf(ProcessHandle p) {
        return p.info().commandLine().orElse(p.info().command().orElse("?"));
    }

    private static String describe(List<ProcessHandle> processes) {
        return processes.stream().map(p -> p.pid() + " " + abbreviate(commandOf(p))).toList().toString();
    }

    private static String abbreviate(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "…" : s;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
