package dev.oncepay.sim.merchant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A merchant's backend receiving oncepay's events, for the tests, the local run and the drill: it
 * verifies each delivery's signature, answers as its faults say, applies what it acknowledged by
 * sequence (as a merchant should), and counts it all: the oracle for "events missing: 0" and
 * "events out of order applied: 0".
 *
 * <p>{@code POST /merchant/{endpoint}} takes deliveries; {@code GET /_merchant/received},
 * {@code POST|GET /_merchant/faults[?endpoint=<id>]} and {@code POST /_merchant/reset} steer and
 * inspect it. Faults apply to every endpoint unless one has its own (set with {@code ?endpoint=}).
 */
public final class MerchantEndpoint implements AutoCloseable {

    public static final String DELIVERY_PATH = "/merchant/";
    /** Enough for a drill's parallel deliveries while some handlers sleep in stalls. */
    private static final int HTTP_THREADS = 64;
    private static final int REDIRECT_STATUS = 302;
    private static final int DARK_STATUS = 503;

    private final ObjectMapper json = new ObjectMapper();
    private final Clock clock;
    private final Map<String, List<String>> secrets = new ConcurrentHashMap<>();
    private final Map<String, MerchantFaults> endpointFaults = new ConcurrentHashMap<>();
    private volatile MerchantFaults faults = MerchantFaults.NONE;
    private final Random dice;
    private final MerchantBook book = new MerchantBook();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final ExecutorService threads;
    private final HttpServer server;

    private MerchantEndpoint(int port, Map<String, List<String>> secretsByEndpoint, long seed, Clock clock) throws IOException {
        this.clock = clock;
        this.dice = new Random(seed);
        secretsByEndpoint.forEach(this::setSecrets);
        AtomicInteger threadNumber = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(HTTP_THREADS, runnable -> {
            Thread thread = new Thread(runnable, "merchant-http-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
        server.setExecutor(threads);
        server.createContext(DELIVERY_PATH, exchange -> handle(exchange, this::deliver));
        server.createContext("/_merchant/", exchange -> handle(exchange, this::control));
        server.createContext("/", exchange -> handle(exchange, e -> answer(e, 404, error("no such path"))));
        server.start();
    }

    /** Starts on {@code port} (0: any free one) with each endpoint's secrets; an endpoint without secrets refuses every delivery. */
    public static MerchantEndpoint start(int port, Map<String, List<String>> secretsByEndpoint) {
        return start(port, secretsByEndpoint, 42, Clock.systemUTC());
    }

    /** As {@link #start(int, Map)}, with the fault dice's seed and the clock signatures' age is checked against. */
    public static MerchantEndpoint start(int port, Map<String, List<String>> secretsByEndpoint, long seed, Clock clock) {
        try {
            return new MerchantEndpoint(port, secretsByEndpoint, seed, clock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the merchant endpoint on port " + port, e);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:<port>}, without a trailing slash. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** Where oncepay delivers {@code endpoint}'s events. */
    public String url(String endpoint) {
        return baseUrl() + DELIVERY_PATH + endpoint;
    }

    /** Replaces the secrets {@code endpoint} verifies with: a merchant's side of a rotation. */
    public void setSecrets(String endpoint, List<String> values) {
        secrets.put(endpoint, List.copyOf(values));
    }

    /** The faults of every endpoint without its own. */
    public MerchantFaults faults() {
        return faults;
    }

    public void setFaults(MerchantFaults value) {
        faults = value;
    }

    /** The faults {@code endpoint} meets: its own, else everyone's. */
    public MerchantFaults faults(String endpoint) {
        return endpointFaults.getOrDefault(endpoint, faults);
    }

    public void setFaults(String endpoint, MerchantFaults value) {
        endpointFaults.put(endpoint, value);
    }

    /** No faults anywhere. */
    public void clearFaults() {
        endpointFaults.clear();
        faults = MerchantFaults.NONE;
    }

    /** Every verified delivery, oldest first, with its answer. */
    public List<ReceivedDelivery> deliveries() {
        return book.deliveries();
    }

    public List<ReceivedDelivery> deliveries(String endpoint) {
        return book.deliveries().stream().filter(d -> d.endpoint().equals(endpoint)).toList();
    }

    /** The last applied event per object id ({@code data.id}). */
    public Map<String, AppliedEvent> applied() {
        return book.applied();
    }

    public MerchantCounts counts() {
        return book.counts();
    }

    /** Forgets every delivery, application and count; faults and secrets stay. */
    public void reset() {
        book.clear();
    }

    /** Stops at once: stalled requests end and their connections drop. */
    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        threads.shutdownNow();
    }

    // --- deliveries -----------------------------------------------------------------------------

    private void deliver(HttpExchange exchange) throws IOException, InterruptedException {
        if (!"POST".equals(exchange.getRequestMethod())) {
            answer(exchange, 405, error("deliveries are POSTed"));
            return;
        }
        String endpoint = exchange.getRequestURI().getPath().substring(DELIVERY_PATH.length());
        byte[] body = exchange.getRequestBody().readAllBytes();
        book.arrived();
        if (!MerchantSignature.verify(exchange.getRequestHeaders().getFirst(MerchantSignature.HEADER), body,
                secrets.getOrDefault(endpoint, List.of()), clock.instant().getEpochSecond())) {
            book.rejected();
            answer(exchange, 401, error("no valid " + MerchantSignature.HEADER));
            return;
        }
        JsonNode event;
        try {
            event = json.readTree(body);
        } catch (IOException unreadable) {
            event = null;
        }
        MerchantFaults now = faults(endpoint);
        boolean readable = event != null && event.path("id").isTextual() && event.path("data").path("id").isTextual();
        int status;
        long stallMs = 0;
        if (!readable) {
            status = 400;
        } else if (now.dark()) {
            status = DARK_STATUS;
            stallMs = now.stallMs();
        } else {
            stallMs = dice.nextDouble() < now.stallRate() ? now.stallMs() : 0;
            if (dice.nextDouble() < now.failRate()) {
                status = now.failStatus();
            } else {
                status = now.redirect() ? REDIRECT_STATUS : 200;
            }
        }
        // Recorded when decided, before any stall: a caller that gives up mid-stall was still received.
        book.record(new ReceivedDelivery(endpoint,
                readable ? event.path("id").asText() : null,
                readable ? event.path("type").asText(null) : null,
                readable ? event.path("data").path("id").asText() : null,
                readable ? event.path("sequence").asLong() : 0,
                readable ? event.path("data").path("status").asText(null) : null,
                status, clock.instant()));
        if (stallMs > 0 && closed.await(stallMs, TimeUnit.MILLISECONDS)) {
            return;
        }
        if (status == REDIRECT_STATUS) {
            exchange.getResponseHeaders().set("Location", "/elsewhere");
        }
        answer(exchange, status, status == 200 ? json.createObjectNode().put("received", true) : error("answered " + status));
    }

    // --- control --------------------------------------------------------------------------------

    private void control(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        switch (exchange.getRequestURI().getPath()) {
            case "/_merchant/received" -> {
                if (!method.equals("GET")) {
                    answer(exchange, 405, error("GET only"));
                    return;
                }
                answer(exchange, 200, received());
            }
            case "/_merchant/faults" -> {
                String endpoint = queryParameter(exchange, "endpoint");
                if (method.equals("POST")) {
                    try {
                        MerchantFaults changed = (endpoint == null ? faults : faults(endpoint))
                                .merge(json.readTree(exchange.getRequestBody().readAllBytes()));
                        if (endpoint == null) {
                            setFaults(changed);
                        } else {
                            setFaults(endpoint, changed);
                        }
                    } catch (IllegalArgumentException | IOException refused) {
                        answer(exchange, 400, error(refused.getMessage()));
                        return;
                    }
                } else if (!method.equals("GET")) {
                    answer(exchange, 405, error("GET or POST"));
                    return;
                }
                answer(exchange, 200, (endpoint == null ? faults : faults(endpoint)).toJson(json));
            }
            case "/_merchant/reset" -> {
                if (!method.equals("POST")) {
                    answer(exchange, 405, error("POST only"));
                    return;
                }
                reset();
                answer(exchange, 200, json.createObjectNode().put("reset", true));
            }
            default -> answer(exchange, 404, error("no such path"));
        }
    }

    private ObjectNode received() {
        ObjectNode root = json.createObjectNode();
        ArrayNode deliveries = root.putArray("deliveries");
        book.deliveries().forEach(d -> deliveries.add(d.toJson(json)));
        ObjectNode applied = root.putObject("applied");
        book.applied().forEach((objectId, event) -> applied.set(objectId, event.toJson(json)));
        root.set("counts", book.counts().toJson(json));
        return root;
    }

    // --- plumbing -------------------------------------------------------------------------------

    private interface Handler {
        void serve(HttpExchange exchange) throws IOException, InterruptedException;
    }

    private void handle(HttpExchange exchange, Handler handler) {
        try {
            handler.serve(exchange);
        } catch (InterruptedException closing) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | IOException e) {
            System.err.println("merchant endpoint: unexpected failure serving " + exchange.getRequestMethod() + " "
                    + exchange.getRequestURI().getPath() + ": " + e);
            answer(exchange, 500, error("merchant endpoint error"));
        } finally {
            exchange.close();
        }
    }

    private ObjectNode error(String message) {
        return json.createObjectNode().put("error", message);
    }

    private void answer(HttpExchange exchange, int status, JsonNode body) {
        try {
            byte[] bytes = json.writeValueAsBytes(body);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        } catch (IOException callerGone) {
            // The caller timed out during a stall: nobody is left to answer.
        }
    }

    private static String queryParameter(HttpExchange exchange, String name) {
        String query = exchange.getRequestURI().getRawQuery();
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8).equals(name)) {
                return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** {@code endpoint=secret} pairs, as the simulator's {@code --merchant-secret} takes them, grouped by endpoint in order. */
    public static Map<String, List<String>> secrets(List<String> pairs) {
        Map<String, List<String>> byEndpoint = new java.util.LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                // The value is a secret: the message does not repeat it.
                throw new IllegalArgumentException("--merchant-secret takes <endpoint>=<secret>");
            }
            byEndpoint.computeIfAbsent(pair.substring(0, eq), e -> new ArrayList<>()).add(pair.substring(eq + 1));
        }
        return byEndpoint;
    }
}
