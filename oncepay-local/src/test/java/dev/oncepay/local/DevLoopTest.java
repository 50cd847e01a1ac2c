package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.testkit.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dev loop as a developer runs it: {@code ./run-local.sh --dev}, the first answer through the
 * local API Gateway, then {@code ChargeUseCase} edited and saved as in an editor, and the next
 * request answered by the new code from the same running loop (same store, same processes). Also:
 * a clean dev-mode start logs no ERROR (no Dev Service looks for Docker), reconcile's schedule runs
 * beside it, and SIGTERM stops every process the loop started.
 *
 * <p>Dev mode compiles into and watches the project's own {@code src/} and {@code target/}, so the
 * loop runs on a copy of the project in {@code target/dev-loop-test/}: the checkout is never edited.
 * The copy starts with this build's package and classes ({@code --skip-build}), as a developer's
 * second start would.
 */
@Tag("slow")
class DevLoopTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration STARTS_WITHIN = Duration.ofSeconds(240);
    /** Quarkus' Lambda poll loop looks for changed sources at most once per this interval (LambdaHotReplacementRecorder). */
    private static final long HOT_REPLACEMENT_INTERVAL_MS = 2_000;
    /** A dev-mode JVM's own log line at ERROR level (the functions' sandboxes prefix theirs with [name#n]). */
    private static final Pattern DEV_JVM_ERROR = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d [\\d:,]+ ERROR ");
    private static final String LOOKUP = "        return refunds.findPayment(paymentId).filter(p -> p.payment().tenant().equals(tenant))";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    @Timeout(420)
    void aSavedChangeIsServedByTheNextRequestWithoutARestart() throws Exception {
        Path root = LocalRun.projectRoot();
        Path work = Path.of("target/dev-loop-test").toAbsolutePath();
        LambdaPackage.built();
        Path project = copyOfProject(root, work.resolve("project"));

        int apiPort = FreePorts.next();
        int devPort = FreePorts.next();
        int debugPort = FreePorts.next();
        List<String> command = List.of("/bin/bash", "run-local.sh", "--dev", "--skip-build",
                "--api-port", Integer.toString(apiPort), "--sim-port", Integer.toString(FreePorts.next()),
                "--dynamo-port", Integer.toString(FreePorts.next()), "--dev-port", Integer.toString(devPort),
                "--queue-port", Integer.toString(FreePorts.next()), "--sandboxes", "charge-worker=0",
                "--debug-port", Integer.toString(debugPort), "--reconcile-every", "3s", "--cds", "off");
        long started = System.nanoTime();
        Process loop = new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true).start();
        // Read while the reader thread appends: a copy-on-write list iterates a snapshot.
        List<String> output = new CopyOnWriteArrayList<>();
        CountDownLatch runReady = new CountDownLatch(1);
        CountDownLatch devListening = new CountDownLatch(1);
        String listening = "Listening on: http://localhost:" + devPort + "/_lambda_/";
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(loop.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    output.add(line);
                    System.out.println("dev-loop | " + line);
                    if (line.contains(LocalRun.READY)) {
                        runReady.countDown();
                    }
                    if (line.contains(listening)) {
                        devListening.countDown();
                    }
                }
            } catch (IOException ended) {
                // the loop's output closed
            }
        }, "dev-loop-output");
        reader.setDaemon(true);
        reader.start();

        List<ProcessHandle> loopProcesses = new ArrayList<>();
        try {
            long deadline = System.nanoTime() + STARTS_WITHIN.toNanos();
            if (!runReady.await(STARTS_WITHIN.toSeconds(), TimeUnit.SECONDS)
                    || !devListening.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                fail("the dev loop did not start within " + STARTS_WITHIN.toSeconds() + " s (alive: " + loop.isAlive() + ")");
            }
            String api = "http://127.0.0.1:" + apiPort;
            String body = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_dev_1\"}";
            HttpResponse<String> first = send(payment(api, "dev-loop-1", body));
            long firstAnswer = System.nanoTime();
            assertEquals(201, first.statusCode(), first.body());
            String id = JSON.readTree(first.body()).get("id").asText();
            HttpResponse<String> read = send(lookup(api, id));
            long lastRequest = System.nanoTime();
            assertEquals(200, read.statusCode(), read.body());
            loopProcesses.addAll(loop.descendants().toList());

            // The developer's edit: the lookup no longer finds any payment.
            Thread.sleep(Math.max(0, HOT_REPLACEMENT_INTERVAL_MS + 100 - (System.nanoTime() - lastRequest) / 1_000_000));
            Path source = project.resolve("oncepay-functions/src/main/java/dev/oncepay/charge/ChargeUseCase.java");
            String code = Files.readString(source);
            assertTrue(code.contains(LOOKUP), "ChargeUseCase has no line to edit: " + LOOKUP.strip());
            long saved = System.nanoTime();
            Files.writeString(source, code.replace(LOOKUP, "        return Optional.<RefundRepository.RefundablePayment>empty()"));
            HttpResponse<String> changed = send(lookup(api, id));
            long changedAnswer = System.nanoTime();
            assertEquals(404, changed.statusCode(), "the next request after the save still ran the old code: "
                    + changed.body());
            assertTrue(output.stream().anyMatch(l -> l.contains("Restarting quarkus due to changes in")
                    && l.contains("ChargeUseCase")), "no live reload of ChargeUseCase in the dev JVM's log");

            // Same loop, same store: the payment made before the edit replays.
            HttpResponse<String> replay = send(payment(api, "dev-loop-1", body));
            assertEquals(201, replay.statusCode(), replay.body());
            assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
            assertTrue(loop.isAlive(), "the dev loop ended");
            assertTrue(loopProcesses.stream().allMatch(ProcessHandle::isAlive),
                    "a process of the loop was restarted: " + loopProcesses);

            assertTrue(output.stream().anyMatch(l -> l.contains("[schedule] rule/oncepay-reconcile -> reconcile#1")),
                    "reconcile's schedule did not run");
            List<String> errors = output.stream().filter(l -> DEV_JVM_ERROR.matcher(l).find()).toList();
            assertTrue(errors.isEmpty(), "the dev-mode start logged errors: " + errors);
            assertFalse(output.stream().anyMatch(l -> l.toLowerCase(Locale.ROOT).contains("docker")),
                    "something in dev mode looked for Docker");

            System.out.printf(Locale.ROOT, "DevLoopTest: dev loop start (command to first answer) %.1f s;"
                    + " save to changed answer %d ms (noisy: a shared 2-core machine)%n",
                    (firstAnswer - started) / 1e9, (changedAnswer - saved) / 1_000_000);
        } finally {
            loopProcesses.addAll(loop.descendants().toList());
            loop.destroy(); // SIGTERM to run-local.sh: it stops Quarkus, then the local run
            if (!loop.waitFor(90, TimeUnit.SECONDS)) {
                loop.destroyForcibly();
                loopProcesses.forEach(ProcessHandle::destroyForcibly);
                fail("run-local.sh --dev did not stop within 90 s of SIGTERM");
            }
        }
        for (ProcessHandle p : loopProcesses) {
            assertFalse(p.onExit().completeOnTimeout(p, 30, TimeUnit.SECONDS).get().isAlive(),
                    "still running after the loop stopped: " + p.pid() + " " + p.info().commandLine().orElse("?"));
        }
        for (int port : new int[] {apiPort, devPort, debugPort}) {
            try (ServerSocket free = new ServerSocket()) {
                free.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
        }
    }

    /**
     * What {@code run-local.sh --dev --skip-build} and {@code ./mvnw quarkus:dev} need of the project:
     * the reactor's build files and sources, dynalite (linked), and this build's output of every
     * module (the functions' package, the local run's classes and class path).
     */
    private static Path copyOfProject(Path root, Path copy) throws IOException {
        TaskRoot.deleteRecursively(copy);
        Files.createDirectories(copy);
        for (String part : List.of("pom.xml", "mvnw", ".mvn", "package.json", "run-local.sh", "scripts")) {
            copyTree(root.resolve(part), copy.resolve(part));
        }
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : (Iterable<Path>) modules.filter(m -> Files.isRegularFile(m.resolve("pom.xml")))::iterator) {
                for (String part : List.of("pom.xml", "src", "target/classes", "target/function.zip",
                        "target/runtime.classpath")) {
                    if (Files.exists(module.resolve(part))) {
                        copyTree(module.resolve(part), copy.resolve(module.getFileName()).resolve(part));
                    }
                }
            }
        }
        Files.createSymbolicLink(copy.resolve("node_modules"), root.resolve("node_modules"));
        return copy;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(f, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static HttpRequest payment(String api, String key, String body) {
        return HttpRequest.newBuilder(URI.create(api + "/payments")).timeout(Duration.ofSeconds(60))
                .header("Idempotency-Key", key).header(ApiGateway.TENANT_HEADER, "merchant-a")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private static HttpRequest lookup(String api, String id) {
        return HttpRequest.newBuilder(URI.create(api + "/payments/" + id)).timeout(Duration.ofSeconds(60))
                .header(ApiGateway.TENANT_HEADER, "merchant-a").GET().build();
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
