package dev.oncepay.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * A loopback HTTP proxy in front of dynalite that makes the store as hostile as real DynamoDB:
 * throttling, {@code 500}s, latency, stalls, writes that commit but whose answer is lost, and
 * outages. Everything else is forwarded faithfully (method, path, headers, body both ways), so the
 * functions under test use the real AWS SDK against it unchanged.
 *
 * <p>Steered from Java ({@link #set}, {@link #failNext}) or, like the PSP simulator, over HTTP on
 * its own port: {@code GET /_store/faults}, {@code POST /_store/faults} (any subset of the
 * {@link StoreFaults} fields; {@code 400} on bad input) → the full current settings,
 * {@code POST /_store/reset}, {@code GET /_store/injected} (faults injected so far, by kind),
 * {@code GET /_store/stats} (requests received so far by operation, in all and by the caller's
 * access key id — the local run gives each function its own — whatever became of them).
 * Random faults are drawn from a seeded generator, so a run with the same seed and the same
 * request order meets the same faults.
 */
public final class StoreFaultProxy implements AutoCloseable {

    public static final long DEFAULT_SEED = 8;
    static final String CONTROL_PATH = "/_store/";

    /** DynamoDB operations that touch items; faults never hit table administration. */
    static final Set<String> DATA_OPERATIONS = Set.of(
            "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
            "BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
            "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction");

    /**
     * Set by the local run's dynalite on each answer: the µs it took on the request itself
     * ({@code LocalDynamo}). Counted here and never relayed.
     */
    public static final String HANDLED_MICROS_HEADER = "x-oncepay-handled-micros";

    /** Headers the JDK client sets itself (it refuses them) or that describe one hop only. */
    private static final Set<String> HOP_HEADERS = Set.of(
            "connection", "content-length", "expect", "host", "upgrade", "transfer-encoding", "keep-alive",
            HANDLED_MICROS_HEADER);

    static {
        // As in the PSP simulator: without TCP_NODELAY each answer waits ~40 ms for a delayed ACK.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final ObjectMapper json = new ObjectMapper();
    private final URI upstream;
    private final long seed;
    private final HttpClient client;
    private final ExecutorService threads;
    private final HttpServer server;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Map<StoreFault, AtomicLong> injected = new EnumMap<>(StoreFault.class);
    private final AtomicLong outageDrops = new AtomicLong();
    /** Requests received by caller (SigV4 access key id) and operation; guarded by itself. */
    private final Map<String, Map<String, Long>> requestsByCaller = new java.util.TreeMap<>();
    /** Guarded by {@code requestsByCaller}, like the counts. */
    private final Map<String, Timing> timingByCaller = new java.util.TreeMap<>();
    /** Deterministic faults per operation, consumed before any random draw; guarded by {@code this}. */
    private final Map<String, Deque<Scripted>> scripted = new HashMap<>();
    private volatile StoreFaults faults = StoreFaults.none();
    private Random random; // guarded by this

    private StoreFaultProxy(URI upstream, int port, long seed) throws IOException {
        this.upstream = upstream;
        this.seed = seed;
        this.random = new Random(seed);
        for (StoreFault fault : StoreFault.values()) {
            injected.put(fault, new AtomicLong());
        }
        AtomicInteger threadNumber = new AtomicInteger();
        // Unbounded: stalled requests each hold a thread and must not starve healthy ones.
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "store-fault-proxy-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        // A direct executor: dynalite's answer is read on the client's selector thread, which wakes
        // the waiting proxy thread, instead of passing through a worker thread as well.
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .executor(Runnable::run)
                .build();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 256);
        server.setExecutor(threads);
        server.createContext(CONTROL_PATH, this::control);
        server.createContext("/", this::proxy);
        server.start();
    }

    /** A proxy on 127.0.0.1:{@code port} (0 = a free port) in front of {@code upstreamEndpoint}. */
    public static StoreFaultProxy start(String upstreamEndpoint, int port) {
        return start(upstreamEndpoint, port, DEFAULT_SEED);
    }

    public static StoreFaultProxy start(String upstreamEndpoint, int port, long seed) {
        try {
            return new StoreFaultProxy(URI.create(upstreamEndpoint), port, seed);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the store fault proxy on port " + port, e);
        }
    }

    /** {@code http://127.0.0.1:<port>}, without a trailing slash. */
    public String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public StoreFaults faults() {
        return faults;
    }

    public void set(StoreFaults newFaults) {
        faults = Objects.requireNonNull(newFaults, "faults");
    }

    /**
     * The next {@code times} requests for {@code operation} (the X-Amz-Target operation, e.g.
     * {@code "UpdateItem"}) get {@code fault}, ahead of any random fault; for deterministic tests.
     */
    public void failNext(String operation, StoreFault fault, int times) {
        failNext(operation, null, fault, times);
    }

    /**
     * As {@link #failNext(String, StoreFault, int)}, for requests whose JSON body contains
     * {@code bodyContains} (e.g. {@code "payment#"}: only writes of payment items); others pass.
     */
    public synchronized void failNext(String operation, String bodyContains, StoreFault fault, int times) {
        Objects.requireNonNull(fault, "fault");
        if (times < 0) {
            throw new IllegalArgumentException("times must not be negative");
        }
        Deque<Scripted> queue = scripted.computeIfAbsent(operation, ignored -> new ArrayDeque<>());
        for (int i = 0; i < times; i++) {
            queue.add(new Scripted(fault, bodyContains, null));
        }
    }

    /**
     * As {@link #failNext(String, String, StoreFault, int)}, after letting the next {@code passing}
     * matching requests through: targets one request of a known sequence (the third payment read,
     * say) and the SDK's retries of it.
     */
    public synchronized void failAfter(String operation, String bodyContains, int passing, StoreFault fault,
            int times) {
        Objects.requireNonNull(fault, "fault");
        if (passing < 0 || times < 1) {
            throw new IllegalArgumentException("passing must not be negative, times must be positive");
        }
        Deque<Scripted> queue = scripted.computeIfAbsent(operation, ignored -> new ArrayDeque<>());
        queue.add(new Scripted(fault, bodyContains, null, new AtomicInteger(passing)));
        for (int i = 1; i < times; i++) {
            queue.add(new Scripted(fault, bodyContains, null));
        }
    }

    /**
     * The next request for {@code operation} whose body contains {@code bodyContains} (null: any)
     * is forwarded (it commits) and its 500 held until {@link HeldAnswer#letGo()}: a lost answer
     * whose window a test controls.
     */
    public synchronized HeldAnswer holdNextLostAnswer(String operation, String bodyContains) {
        HeldAnswer held = new HeldAnswer();
        scripted.computeIfAbsent(operation, ignored -> new ArrayDeque<>())
                .add(new Scripted(StoreFault.LOST_ANSWER, bodyContains, held));
        return held;
    }

    /**
     * The next request for {@code operation} whose body contains {@code bodyContains} (null: any)
     * is forwarded (it commits) and its true answer held until {@link HeldAnswer#letGo()}.
     */
    public synchronized HeldAnswer holdNextAnswer(String operation, String bodyContains) {
        HeldAnswer held = new HeldAnswer();
        scripted.computeIfAbsent(operation, ignored -> new ArrayDeque<>())
                .add(new Scripted(StoreFault.HELD_ANSWER, bodyContains, held));
        return held;
    }

    /** Healthy again: no faults, no scripted faults, counters at zero, the dice from the seed. */
    public synchronized void reset() {
        faults = StoreFaults.none();
        scripted.values().forEach(queue -> queue.forEach(Scripted::letGo));
        scripted.clear();
        random = new Random(seed);
        injected.values().forEach(count -> count.set(0));
        outageDrops.set(0);
        synchronized (requestsByCaller) {
            requestsByCaller.clear();
            timingByCaller.clear();
        }
    }

    /**
     * Time spent on one caller's healthy requests: in this proxy in all, waiting on the store behind
     * it, and of that the store's own work where the store says it ({@link #HANDLED_MICROS_HEADER}).
     */
    private static final class Timing {
        long requests;
        long handledNanos;
        long upstreamNanos;
        long upstreamOwnMicros;
        long upstreamOwnRequests;
    }

    private void timed(String caller, long handledNanos, long upstreamNanos, long upstreamOwnMicros) {
        synchronized (requestsByCaller) {
            Timing t = timingByCaller.computeIfAbsent(caller, c -> new Timing());
            t.requests++;
            t.handledNanos += handledNanos;
            t.upstreamNanos += upstreamNanos;
            if (upstreamOwnMicros >= 0) {
                t.upstreamOwnMicros += upstreamOwnMicros;
                t.upstreamOwnRequests++;
            }
        }
    }

    private void count(String caller, String operation) {
        synchronized (requestsByCaller) {
            requestsByCaller.computeIfAbsent(caller, c -> new java.util.TreeMap<>()).merge(operation, 1L, Long::sum);
        }
    }

    /**
     * Requests received since start or the last reset, by operation: {@code {"requests": {op: n},
     * "byCaller": {accessKeyId: {op: n}}}}.
     */
    public ObjectNode stats() {
        ObjectNode root = json.createObjectNode();
        ObjectNode all = root.putObject("requests");
        ObjectNode byCaller = root.putObject("byCaller");
        Map<String, Long> totals = new java.util.TreeMap<>();
        synchronized (requestsByCaller) {
            requestsByCaller.forEach((caller, counts) -> {
                ObjectNode node = byCaller.putObject(caller);
                counts.forEach((operation, n) -> {
                    node.put(operation, n);
                    totals.merge(operation, n, Long::sum);
                });
            });
        }
        totals.forEach(all::put);
        ObjectNode timing = root.putObject("timingByCaller");
        synchronized (requestsByCaller) {
            timingByCaller.forEach((caller, t) -> {
                ObjectNode node = timing.putObject(caller)
                        .put("requests", t.requests)
                        .put("handledMs", t.handledNanos / 1e6)
                        .put("upstreamMs", t.upstreamNanos / 1e6);
                if (t.upstreamOwnRequests > 0) {
                    node.put("upstreamOwnMs", t.upstreamOwnMicros / 1e3).put("upstreamOwnRequests", t.upstreamOwnRequests);
                }
            });
        }
        return root;
    }

    /** How many requests got {@code fault} since start or the last reset. */
    public long injected(StoreFault fault) {
        return injected.get(fault).get();
    }

    /** How many data requests an outage dropped since start or the last reset. */
    public long outageDrops() {
        return outageDrops.get();
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        threads.shutdownNow();
    }

    // --- the proxy ------------------------------------------------------------------------------

    private void proxy(HttpExchange exchange) {
        long received = System.nanoTime();
        try {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String operation = operation(exchange.getRequestHeaders().getFirst("X-Amz-Target"));
            String caller = caller(exchange.getRequestHeaders().getFirst("Authorization"));
            count(caller, operation);
            boolean data = DATA_OPERATIONS.contains(operation);
            StoreFaults now = faults;
            if (data && !pause(now.latencyMs())) {
                return;
            }
            if (data && now.outage()) {
                // The store is down: the connection closes without an answer, as a dead endpoint's
                // would. Scripted faults wait for requests that reach the store.
                outageDrops.incrementAndGet();
                return;
            }
            Scripted next = nextFault(operation, new String(body, StandardCharsets.UTF_8), data, now);
            StoreFault fault = next == null ? null : next.fault();
            if (fault != null) {
                injected.get(fault).incrementAndGet();
            }
            if (fault == null) {
                long sent = System.nanoTime();
                HttpResponse<byte[]> answer = forward(exchange, body);
                long answered = System.nanoTime();
                // Counted before the answer is relayed: a caller holding its answer finds it in the stats.
                timed(caller, answered - received, answered - sent,
                        answer.headers().firstValueAsLong(HANDLED_MICROS_HEADER).orElse(-1));
                relay(exchange, answer);
                return;
            }
            switch (fault) {
                case THROTTLE -> sendError(exchange, 400, "ProvisionedThroughputExceededException",
                        "The level of configured provisioned throughput for the table was exceeded. "
                                + "Consider increasing your provisioning level with the UpdateTable API.");
                case SERVER_ERROR -> sendError(exchange, 500, "InternalServerError", "Internal server error");
                case CONDITION_FAILED -> sendError(exchange, 400, "ConditionalCheckFailedException",
                        "The conditional request failed");
                case STALL -> {
                    if (pause(now.stallMs())) {
                        relay(exchange, forward(exchange, body)); // nobody may be listening any more
                    }
                }
                case LOST_ANSWER -> {
                    forward(exchange, body); // commits; the answer is thrown away
                    if (next.held() != null) {
                        next.held().markCommitted();
                        next.held().awaitLetGo();
                    }
                    sendError(exchange, 500, "InternalServerError", "Internal server error");
                }
                case HELD_ANSWER -> {
                    HttpResponse<byte[]> answer = forward(exchange, body); // commits
                    next.held().markCommitted();
                    next.held().awaitLetGo();
                    relay(exchange, answer);
                }
            }
        } catch (IOException upstreamGone) {
            // dynalite unreachable or the client left: close without an answer, as a dead store would
        } catch (InterruptedException closing) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close(); // without an answer sent, this drops the connection
        }
    }

    private synchronized Scripted nextFault(String operation, String body, boolean data, StoreFaults now) {
        Deque<Scripted> queue = scripted.get(operation);
        if (queue != null) {
            for (Iterator<Scripted> it = queue.iterator(); it.hasNext();) {
                Scripted candidate = it.next();
                if (candidate.bodyContains() == null || body.contains(candidate.bodyContains())) {
                    if (candidate.passing().getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        break; // let through; it meets the dice like any other
                    }
                    it.remove();
                    return candidate;
                }
            }
        }
        if (!data) {
            return null;
        }
        // Every rate draws once per data request in a fixed order, so with a given seed request N
        // meets the same dice whatever else is configured.
        double throttle = random.nextDouble();
        double serverError = random.nextDouble();
        double stall = random.nextDouble();
        double lostAnswer = random.nextDouble();
        if (throttle < now.throttleRate()) {
            return Scripted.random(StoreFault.THROTTLE);
        }
        if (serverError < now.serverErrorRate()) {
            return Scripted.random(StoreFault.SERVER_ERROR);
        }
        if (stall < now.stallRate()) {
            return Scripted.random(StoreFault.STALL);
        }
        if (lostAnswer < now.lostAnswerRate()) {
            return Scripted.random(StoreFault.LOST_ANSWER);
        }
        return null;
    }

    /** One request's fault: scripted (maybe for matching bodies only, maybe held) or drawn. */
    private record Scripted(StoreFault fault, String bodyContains, HeldAnswer held, AtomicInteger passing) {
        Scripted(StoreFault fault, String bodyContains, HeldAnswer held) {
            this(fault, bodyContains, held, new AtomicInteger());
        }

        static Scripted random(StoreFault fault) {
            return new Scripted(fault, null, null);
        }

        void letGo() {
            if (held != null) {
                held.letGo();
            }
        }
    }

    private HttpResponse<byte[]> forward(HttpExchange exchange, byte[] body) throws IOException, InterruptedException {
        URI requested = exchange.getRequestURI();
        String pathAndQuery = requested.getRawPath() + (requested.getRawQuery() == null ? "" : "?" + requested.getRawQuery());
        HttpRequest.Builder request = HttpRequest.newBuilder(upstream.resolve(pathAndQuery))
                .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> request.header(name, value));
            }
        });
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static void relay(HttpExchange exchange, HttpResponse<byte[]> response) throws IOException {
        response.headers().map().forEach((name, values) -> {
            if (!name.startsWith(":") && !HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                exchange.getResponseHeaders().put(name, List.copyOf(values));
            }
        });
        send(exchange, response.statusCode(), response.body());
    }

    /** An error exactly as DynamoDB sends it, CRC32 included (the SDK checks it). */
    private void sendError(HttpExchange exchange, int status, String type, String message) throws IOException {
        ObjectNode error = json.createObjectNode()
                .put("__type", "com.amazonaws.dynamodb.v20120810#" + type)
                .put("message", message);
        byte[] bytes = json.writeValueAsBytes(error);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
        exchange.getResponseHeaders().set("x-amzn-ErrorType", type);
        exchange.getResponseHeaders().set("x-amzn-RequestId", UUID.randomUUID().toString());
        exchange.getResponseHeaders().set("x-amz-crc32", Long.toString(crc.getValue()));
        send(exchange, status, bytes);
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        // The JDK server reads length 0 as "chunked"; -1 is "no body".
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** The access key id of a SigV4 {@code Authorization} header ({@code ... Credential=<id>/<date>/...}), or {@code "-"}. */
    static String caller(String authorization) {
        if (authorization == null) {
            return "-";
        }
        int start = authorization.indexOf("Credential=");
        if (start < 0) {
            return "-";
        }
        start += "Credential=".length();
        int end = authorization.indexOf('/', start);
        return end > start ? authorization.substring(start, end) : "-";
    }

    /** {@code DynamoDB_20120810.UpdateItem} → {@code UpdateItem}. */
    private static String operation(String target) {
        if (target == null) {
            return "";
        }
        return target.substring(target.lastIndexOf('.') + 1);
    }

    /** @return false when the proxy closed meanwhile */
    private boolean pause(long millis) throws InterruptedException {
        return millis <= 0 ? closed.getCount() > 0 : !closed.await(millis, TimeUnit.MILLISECONDS);
    }

    // --- control --------------------------------------------------------------------------------

    private void control(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            switch (exchange.getRequestURI().getPath()) {
                case "/_store/faults" -> {
                    if ("POST".equals(method)) {
                        JsonNode patch;
                        try {
                            patch = json.readTree(exchange.getRequestBody().readAllBytes());
                        } catch (IOException e) {
                            sendJson(exchange, 400, problem("request body is not valid JSON"));
                            return;
                        }
                        try {
                            mergeFaults(patch);
                        } catch (IllegalArgumentException e) {
                            sendJson(exchange, 400, problem(e.getMessage()));
                            return;
                        }
                    } else if (!"GET".equals(method)) {
                        methodNotAllowed(exchange, "GET, POST");
                        return;
                    }
                    sendJson(exchange, 200, faults.toJson(json));
                }
                case "/_store/reset" -> {
                    if (!"POST".equals(method)) {
                        methodNotAllowed(exchange, "POST");
                        return;
                    }
                    reset();
                    sendJson(exchange, 200, json.createObjectNode().put("reset", true));
                }
                case "/_store/injected" -> {
                    if (!"GET".equals(method)) {
                        methodNotAllowed(exchange, "GET");
                        return;
                    }
                    ObjectNode counts = json.createObjectNode();
                    injected.forEach((fault, count) -> counts.put(fault.name(), count.get()));
                    counts.put("OUTAGE_DROP", outageDrops.get());
                    sendJson(exchange, 200, counts);
                }
                case "/_store/stats" -> {
                    if (!"GET".equals(method)) {
                        methodNotAllowed(exchange, "GET");
                        return;
                    }
                    sendJson(exchange, 200, stats());
                }
                default -> sendJson(exchange, 404, problem("no such endpoint: " + exchange.getRequestURI().getPath()));
            }
        }
    }

    private synchronized void mergeFaults(JsonNode patch) {
        faults = faults.merge(patch, json);
    }

    private void methodNotAllowed(HttpExchange exchange, String allowed) throws IOException {
        exchange.getResponseHeaders().set("Allow", allowed);
        sendJson(exchange, 405, problem(exchange.getRequestMethod() + " not allowed"));
    }

    private ObjectNode problem(String message) {
        return json.createObjectNode().put("error", message);
    }

    private void sendJson(HttpExchange exchange, int status, JsonNode body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        send(exchange, status, json.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
    }

    // --- local run ------------------------------------------------------------------------------

    /** {@code --upstream URL} (dynalite, required), {@code --port N} (default 0), {@code --seed N}. */
    public static void main(String[] args) {
        String upstreamEndpoint = null;
        int port = 0;
        long seed = DEFAULT_SEED;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--upstream" -> upstreamEndpoint = args[i + 1];
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (known: --upstream URL, --port N, --seed N)");
            }
        }
        if (upstreamEndpoint == null) {
            throw new IllegalArgumentException("--upstream URL is required");
        }
        StoreFaultProxy proxy = start(upstreamEndpoint, port, seed);
        Runtime.getRuntime().addShutdownHook(new Thread(proxy::close, "store-fault-proxy-shutdown"));
        System.out.println("store fault proxy listening on " + proxy.endpoint() + " in front of " + upstreamEndpoint);
    }
}
