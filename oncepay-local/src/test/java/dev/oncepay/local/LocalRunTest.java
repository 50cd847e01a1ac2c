package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Table;
import dev.oncepay.testkit.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The local run end to end, as {@code run-local.sh} starts it: the same Java entry point in its own
 * JVM on free ports with the real Lambda package, a payment over plain HTTP, its replay, a read,
 * a tenant charged through the simulator's Stripe mode (a card that pays, one whose customer must
 * authenticate first),
 * a store outage injected through the fault proxy on the DynamoDB port, the simulator's webhook
 * reaching the webhook function, scheduled events reaching reconcile, queued charges (one asked for
 * with {@code Prefer: respond-async}, one of a tenant queued by default on its own account) charged
 * by charge-worker through each account's queue, the payment's signed event at the merchant
 * endpoint (delivered by event-delivery from the event queue), and SIGTERM — after which every
 * process the run started is gone.
 *
 * <p>Runs in {@code ./mvnw verify} after the functions module's {@code package} phase, on the
 * {@code function.zip} it built ({@link LambdaPackage}).
 */
@Tag("local-run")
@Tag("slow")
class LocalRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A new package trains four functions' AppCDS archives first: 113 s seen on 2 busy cores. */
    private static final Duration READY_WITHIN = Duration.ofSeconds(210);
    /** Identical requests in the one-key race. */
    private static final int RACERS = 30;
    /** How long the provider takes per charge during the race: the winner's charge stays in flight meanwhile. */
    private static final Duration RACE_PROVIDER_LATENCY = Duration.ofSeconds(2);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    @Timeout(360)
    void startsTakesAPaymentReplaysItAndStopsEverythingItStarted() throws Exception {
        Path root = LocalRun.projectRoot();
        long t0 = System.nanoTime();
        Path app = LambdaPackage.built();
        long packaged = System.nanoTime();

        int apiPort = FreePorts.next();
        int simPort = FreePorts.next();
        int storePort = FreePorts.next();
        int queuePort = FreePorts.next();
        int merchantPort = FreePorts.next();
        int dynalitePort = FreePorts.next();
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
                "--queue-port", Integer.toString(queuePort),
                "--merchant-port", Integer.toString(merchantPort),
                "--dynalite-port", Integer.toString(dynalitePort),
                // AWS's least: two worker sandboxes, not five, on this small machine.
                "--queue-concurrency", "2",
                "--reconcile-every", "2s",
                "--tenant-provider", "merchant-s=stripe,merchant-q=stripe",
                "--respond-async", "merchant-q",
                "--parent-pid", Long.toString(ProcessHandle.current().pid()));
        Process run = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
        // Read while the reader thread appends: a copy-on-write list iterates a snapshot.
        List<String> output = new CopyOnWriteArrayList<>();
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
            assertTrue(readyLine.contains("charge 2/2 ready, webhook 1/1 ready, reconcile 1/1 ready, charge-worker 4/4 ready,"
                    + " event-delivery 2/2 ready"),
                    readyLine);
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

            String sim = "http://127.0.0.1:" + simPort;
            oneKeyRacedAcrossTheChargeSandboxes(api, sim);

            // The documented DynamoDB port is the store fault proxy's: an outage set there reaches the
            // functions (503 store-unavailable before any provider call, nothing charged), and a reset
            // heals the store.
            String store = "http://127.0.0.1:" + storePort;
            int charges = ledger(sim).size();
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
            assertEquals(charges, ledger(sim).size(), "nothing charged while the store is down");
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

            queuedChargesThroughEachAccountsQueue(api, sim, output);
            theMerchantHearsOfThePayment(id, "http://127.0.0.1:" + merchantPort, "http://127.0.0.1:" + dynalitePort, output);
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

    /**
     * 30 identical {@code POST /payments} with one key, released at one instant from 30 client
     * threads while the provider takes {@link #RACE_PROVIDER_LATENCY} per charge, so the winner's
     * charge is still in flight while the others arrive at both charge sandboxes. One conditional
     * claim decides: exactly one charge reaches the provider; every other request meets the key in
     * flight ({@code 409} with {@code Retry-After}, then honoured until the answer is stored) or
     * replays it; every client ends with the same payment. A sandbox runs one invocation at a time,
     * so a {@code 409} answered during the winner's charge came from another sandbox than the winner's.
     */
    private void oneKeyRacedAcrossTheChargeSandboxes(String api, String sim) throws Exception {
        String key = "local-run-test-race";
        String body = "{\"amount\":700,\"currency\":\"EUR\",\"reference\":\"order_race\"}";
        HttpClient racers = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        int chargesBefore = ledger(sim).size();
        int chargeRequestsBefore = chargeRequests(sim);
        Map<String, Integer> invocationsBefore = chargeInvocations(api);
        HttpResponse<String> slow = send(HttpRequest.newBuilder(URI.create(sim + "/_sim/faults")).POST(
                HttpRequest.BodyPublishers.ofString("{\"latencyMs\":" + RACE_PROVIDER_LATENCY.toMillis() + "}")));
        assertEquals(200, slow.statusCode(), slow.body());

        List<List<HttpResponse<String>>> answers = new ArrayList<>();
        ExecutorService clients = Executors.newFixedThreadPool(RACERS);
        try {
            CountDownLatch ready = new CountDownLatch(RACERS);
            CountDownLatch release = new CountDownLatch(1);
            List<Future<List<HttpResponse<String>>>> calls = new ArrayList<>();
            for (int i = 0; i < RACERS; i++) {
                calls.add(clients.submit(() -> {
                    HttpRequest request = payment(api, key, body).timeout(Duration.ofSeconds(60)).build();
                    ready.countDown();
                    release.await();
                    return untilAnswered(racers, request);
                }));
            }
            assertTrue(ready.await(10, TimeUnit.SECONDS), "every client thread waits for the release");
            release.countDown();
            for (Future<List<HttpResponse<String>>> call : calls) {
                answers.add(call.get(90, TimeUnit.SECONDS));
            }
        } finally {
            clients.shutdownNow();
            send(HttpRequest.newBuilder(URI.create(sim + "/_sim/faults"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"latencyMs\":0}")));
        }
        Map<String, Integer> invocationsAfter = chargeInvocations(api);

        List<HttpResponse<String>> firsts = answers.stream().map(a -> a.get(0)).toList();
        List<HttpResponse<String>> lasts = answers.stream().map(a -> a.get(a.size() - 1)).toList();
        List<HttpResponse<String>> originals = firsts.stream()
                .filter(a -> a.statusCode() == 201 && a.headers().firstValue("Idempotent-Replayed").isEmpty()).toList();
        assertEquals(1, originals.size(), "exactly one request ran the charge: " + statuses(firsts));
        String id = JSON.readTree(originals.get(0).body()).get("id").asText();
        JsonNode ledger = ledger(sim);
        List<JsonNode> newCharges = IntStream.range(chargesBefore, ledger.size()).mapToObj(ledger::get).toList();
        assertEquals(1, newCharges.size(), "one charge executed at the provider for 30 identical requests: " + newCharges);
        assertEquals(id, newCharges.get(0).get("reference").asText(), "the charge is the winner's payment");
        assertEquals(1, chargeRequests(sim) - chargeRequestsBefore, "one charge request reached the provider");

        for (HttpResponse<String> a : firsts) {
            if (a.statusCode() == 409) {
                assertTrue(JSON.readTree(a.body()).get("type").asText().endsWith("/request-in-flight"), a.body());
                assertTrue(a.headers().firstValue("Retry-After").isPresent(), "a 409 says when to retry");
            } else {
                assertEquals(201, a.statusCode(), "a racer is answered 201 or 409: " + a.body());
            }
        }
        assertTrue(firsts.stream().anyMatch(a -> a.statusCode() == 409),
                "the requests overlapped the charge in flight: " + statuses(firsts));
        for (HttpResponse<String> a : lasts) {
            assertEquals(201, a.statusCode(), a.body());
            assertEquals(id, JSON.readTree(a.body()).get("id").asText(), "every client ends with the same payment");
            assertEquals(originals.get(0).body(), a.body(), "replays are the stored answer, byte for byte");
        }

        int requests = answers.stream().mapToInt(List::size).sum();
        Map<String, Integer> ran = new TreeMap<>();
        invocationsAfter.forEach((sandbox, n) -> ran.put(sandbox, n - invocationsBefore.getOrDefault(sandbox, 0)));
        assertEquals(requests, ran.values().stream().mapToInt(Integer::intValue).sum(),
                "every request was one charge invocation: " + ran);
        assertEquals(2, ran.values().stream().filter(n -> n > 0).count(),
                "both charge sandboxes answered some of the race: " + ran);
        System.out.printf(Locale.ROOT, "LocalRunTest race: first answers %s, %d requests in all, invocations by sandbox %s%n",
                statuses(firsts), requests, ran);
    }

    /**
     * A charge asked for with {@code Prefer: respond-async} (the default account's queue), and one of
     * a tenant whose charges are queued by default (the Stripe account's queue): each answered 202 at
     * once, pending, then charged by charge-worker from its account's queue through the event-source
     * mapping, and settled as a request's charge would be.
     */
    private void queuedChargesThroughEachAccountsQueue(String api, String sim, List<String> output) throws Exception {
        String body = "{\"amount\":1200,\"currency\":\"EUR\",\"reference\":\"order_q1\"}";
        HttpResponse<String> asked = send(payment(api, "local-run-test-q1", body).header("Prefer", "respond-async"));
        assertEquals(202, asked.statusCode(), asked.body());
        assertEquals("respond-async", asked.headers().firstValue("Preference-Applied").orElse(null));
        String askedId = JSON.readTree(asked.body()).get("id").asText();
        assertEquals("/payments/" + askedId, asked.headers().firstValue("Location").orElse(null));

        String card = "{\"amount\":1300,\"currency\":\"EUR\",\"reference\":\"order_q2\",\"paymentMethod\":\"pm_card_visa\"}";
        HttpResponse<String> byDefault = send(payment(api, "merchant-q", "local-run-test-q2", card));
        assertEquals(202, byDefault.statusCode(), "merchant-q's charges are queued without asking: " + byDefault.body());
        String byDefaultId = JSON.readTree(byDefault.body()).get("id").asText();

        awaitStatus(api, "merchant-a", askedId, "succeeded", Duration.ofSeconds(60));
        awaitStatus(api, "merchant-q", byDefaultId, "succeeded", Duration.ofSeconds(60));
        awaitLine(output, "[sqs] oncepay-charges-default -> charge-worker#", Duration.ofSeconds(10));
        awaitLine(output, "[sqs] oncepay-charges-stripe -> charge-worker#", Duration.ofSeconds(10));
        String ledger = send(HttpRequest.newBuilder(URI.create(sim + "/_sim/ledger")).GET()).body();
        assertTrue(ledger.contains("\"reference\":\"" + askedId + "\"") && ledger.contains("\"reference\":\"" + byDefaultId + "\""),
                "both charged at the provider: " + ledger);
    }

    /**
     * The first payment's {@code payment.succeeded} reached merchant-a's endpoint: relayed to the event
     * queue by the write that settled it, delivered by event-delivery through the queue's mapping,
     * signed with the secret the merchant verifies with (nothing rejected), acknowledged, and applied
     * with the sequence of its history entry in the payment item (its 1-based position) and the
     * event id {@code evt_<payment id>_<sequence>}.
     */
    private void theMerchantHearsOfThePayment(String paymentId, String merchant, String dynalite, List<String> output)
            throws Exception {
        JsonNode received = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            received = JSON.readTree(send(HttpRequest.newBuilder(URI.create(merchant + "/_merchant/received")).GET()).body());
            if ("succeeded".equals(received.path("applied").path(paymentId).path("status").asText())) {
                break;
            }
            Thread.sleep(200);
        }
        assertNotNull(received);
        JsonNode applied = received.path("applied").path(paymentId);
        assertEquals("succeeded", applied.path("status").asText(), "the merchant applied the payment's outcome: " + received);
        assertEquals("payment.succeeded", applied.path("type").asText());
        long sequence = applied.path("sequence").asLong();
        assertEquals("evt_" + paymentId + "_" + sequence, applied.path("eventId").asText());
        assertEquals(successEntry(dynalite, paymentId), sequence, "the sequence is the history entry's position");
        List<JsonNode> deliveries = new ArrayList<>();
        received.path("deliveries").forEach(d -> {
            if (d.path("objectId").asText().equals(paymentId)) {
                deliveries.add(d);
            }
        });
        assertTrue(deliveries.stream().anyMatch(d -> d.path("endpoint").asText().equals("merchant-a")
                && d.path("answer").asInt() == 200 && d.path("sequence").asLong() == sequence), "to merchant-a's path: " + deliveries);
        JsonNode counts = received.path("counts");
        assertEquals(0, counts.path("rejected").asInt(), "every delivery signed with the endpoint's secret: " + counts);
        assertEquals(0, counts.path("outOfOrderApplied").asInt(), counts.toString());
        awaitLine(output, "[sqs] oncepay-events -> event-delivery#", Duration.ofSeconds(10));
    }

    /** The 1-based position of the payment's history entry whose event is {@code payment.succeeded}, read from dynalite. */
    private static long successEntry(String dynalite, String paymentId) {
        try (DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(URI.create(dynalite))
                .region(Region.of(SandboxCommand.REGION)).httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .build()) {
            Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName("oncepay-local").consistentRead(true)
                    .key(Map.of(Table.PK, AttributeValue.fromS("payment#" + paymentId)))).item();
            List<AttributeValue> history = item.get(Table.HISTORY).l();
            for (int i = 0; i < history.size(); i++) {
                AttributeValue event = history.get(i).m().get(Table.HISTORY_EVENT);
                if (event != null && "payment.succeeded".equals(event.s())) {
                    return i + 1;
                }
            }
            fail("no payment.succeeded entry in the history of " + paymentId + ": " + history);
            return -1;
        }
    }

    /** Sends {@code request}, and again after each {@code 409}'s {@code Retry-After}: every answer, the last one stored. */
    private static List<HttpResponse<String>> untilAnswered(HttpClient client, HttpRequest request) throws Exception {
        List<HttpResponse<String>> answers = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            HttpResponse<String> answer = client.send(request, HttpResponse.BodyHandlers.ofString());
            answers.add(answer);
            if (answer.statusCode() != 409 || System.nanoTime() > deadline) {
                return answers;
            }
            Thread.sleep(Duration.ofSeconds(Long.parseLong(answer.headers().firstValue("Retry-After").orElse("1"))).toMillis());
        }
    }

    private static Map<Integer, Long> statuses(List<HttpResponse<String>> answers) {
        return answers.stream().collect(Collectors.groupingBy(HttpResponse::statusCode, TreeMap::new, Collectors.counting()));
    }

    /** The simulator's ledger: every charge it executed, oldest first. */
    private JsonNode ledger(String sim) throws Exception {
        return JSON.readTree(send(HttpRequest.newBuilder(URI.create(sim + "/_sim/ledger")).GET()).body()).get("charges");
    }

    private int chargeRequests(String sim) throws Exception {
        return JSON.readTree(send(HttpRequest.newBuilder(URI.create(sim + "/_sim/stats")).GET()).body())
                .get("chargeRequests").asInt();
    }

    /** Invocations each charge sandbox ran so far, by {@code charge#<slot>}, from {@code GET /_local/sandboxes}. */
    private Map<String, Integer> chargeInvocations(String api) throws Exception {
        Map<String, Integer> bySandbox = new TreeMap<>();
        for (JsonNode s : JSON.readTree(send(HttpRequest.newBuilder(URI.create(api + "/_local/sandboxes")).GET()).body())
                .get("sandboxes")) {
            if (s.get("function").asText().equals("charge")) {
                bySandbox.put("charge#" + s.get("slot").asInt(), s.get("invocations").asInt());
            }
        }
        return bySandbox;
    }

    private static void awaitLine(List<String> output, String fragment, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (output.stream().anyMatch(l -> l.contains(fragment))) {
                return;
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

}
