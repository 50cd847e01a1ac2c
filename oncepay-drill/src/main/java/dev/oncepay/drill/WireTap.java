package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A wire of oncepay's, observed: a loopback HTTP proxy that forwards every request unchanged. In
 * front of the PSP simulator it notes each charge request as it arrives (on this JVM's clock, the
 * one the clients' answers are timed on), with its provider idempotency key, oncepay payment id
 * and merchant order, and counts lookups: the simulator's ledger lists only the charges it
 * executed; the orphan check needs every request, executed or not. In front of the store it counts
 * the DynamoDB requests of every function by operation ({@code X-Amz-Target}), and those refused
 * because their condition failed (contention, an insufficient balance, a key already claimed). A request the
 * upstream drops without an answer (a reset, a store outage) is dropped here too, so oncepay sees
 * the same fault.
 */
final class WireTap implements AutoCloseable {
    /** Hop-by-hop and length headers: the proxy's own HTTP stacks set them. */
    private static final Set<String> NOT_FORWARDED = Set.of("connection", "content-length", "date", "expect", "host",
            "keep-alive", "transfer-encoding", "upgrade");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SIM_CHARGES = "/v1/charges";
    private static final String STRIPE_CHARGES = "/v1/payment_intents";
    /** The error type DynamoDB answers a write whose condition is false with. */
    private static final String CONDITION_FAILED = "ConditionalCheckFailedException";

    static {
        // Without TCP_NODELAY each answer waits ~40 ms for a delayed ACK (as in the simulator).
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    /**
     * One charge request ({@code POST /v1/charges} or {@code POST /v1/payment_intents}) as it reached the provider. {@code answer}: what the provider
     * answered ({@code 200 succeeded}, {@code 200 processing replayed}, {@code 500}, ...), {@code no
     * answer} for a dropped connection, or null while it runs.
     */
    record ChargeRequest(long atNanos, String idempotencyKey, String paymentId, String order,
            AtomicReference<String> answer) {
        /** The provider executed it: a fresh (not replayed) 2xx, whatever its body, or a decline. */
        boolean executed() {
            String a = answer.get();
            return a != null && (a.startsWith("2") || a.startsWith("402")) && !a.endsWith("replayed");
        }
    }

    private final HttpServer server;
    private final ExecutorService workers;
    private final HttpClient upstream;
    private final String upstreamUrl;
    private final ConcurrentLinkedQueue<ChargeRequest> charges = new ConcurrentLinkedQueue<>();
    private final AtomicInteger lookups = new AtomicInteger();
    private final Map<String, AtomicInteger> dynamoRequests = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> conditionsFailed = new java.util.concurrent.ConcurrentHashMap<>();

    private WireTap(HttpServer server, ExecutorService workers, String upstreamUrl) {
        this.server = server;
        this.workers = workers;
        this.upstreamUrl = upstreamUrl;
        this.upstream = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).executor(workers).build();
    }

    /** Listens on a free loopback port and forwards to {@code upstreamUrl}. */
    static WireTap start(String upstreamUrl) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        AtomicInteger n = new AtomicInteger();
        ExecutorService workers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "drill-wire-tap-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        WireTap tap = new WireTap(server, workers, upstreamUrl);
        server.createContext("/", tap::forward);
        server.setExecutor(workers);
        server.start();
        return tap;
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Status lookups so far (either API's: by reference, by PaymentIntent id, search). */
    int lookupRequests() {
        return lookups.get();
    }

    /** DynamoDB requests so far by operation ({@code PutItem}, {@code GetItem}, ...), SDK retries included. */
    Map<String, Integer> dynamoRequests() {
        Map<String, Integer> result = new java.util.TreeMap<>();
        dynamoRequests.forEach((operation, n) -> result.put(operation, n.get()));
        return result;
    }

    /** DynamoDB requests refused with {@code ConditionalCheckFailedException} so far, by operation. */
    Map<String, Integer> conditionsFailed() {
        Map<String, Integer> result = new java.util.TreeMap<>();
        conditionsFailed.forEach((operation, n) -> result.put(operation, n.get()));
        return result;
    }

    /** The counts of {@code after} less those of {@code before}. */
    static Map<String, Integer> since(Map<String, Integer> before, Map<String, Integer> after) {
        Map<String, Integer> result = new java.util.TreeMap<>();
        after.forEach((operation, n) -> result.put(operation, n - before.getOrDefault(operation, 0)));
        return result;
    }

    /** Every charge request so far, in order of arrival. */
    List<ChargeRequest> chargeRequests() {
        return List.copyOf(charges);
    }

    private void forward(HttpExchange exchange) {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String method = exchange.getRequestMethod();
            ChargeRequest noted = null;
            String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
            String operation = target == null ? null : target.substring(target.indexOf('.') + 1);
            if (operation != null) {
                dynamoRequests.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
            }
            String path = exchange.getRequestURI().getPath();
            if (method.equals("POST") && (path.equals(SIM_CHARGES) || path.equals(STRIPE_CHARGES))) {
                noted = note(exchange.getRequestHeaders().getFirst("Idempotency-Key"), body, path.equals(STRIPE_CHARGES));
            } else if (method.equals("GET") && (path.equals(SIM_CHARGES) || path.startsWith(STRIPE_CHARGES + "/"))) {
                lookups.incrementAndGet();
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(upstreamUrl + exchange.getRequestURI()))
                    .timeout(Duration.ofSeconds(90))
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                    values.forEach(v -> request.header(name, v));
                }
            });
            HttpResponse<byte[]> response;
            try {
                response = upstream.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (IOException dropped) {
                // Closing without response headers drops the connection, as the simulator did.
                if (noted != null) {
                    noted.answer.set("no answer");
                }
                return;
            }
            if (noted != null) {
                noted.answer.set(describe(response));
            }
            if (operation != null && response.statusCode() == 400
                    && new String(response.body(), StandardCharsets.UTF_8).contains(CONDITION_FAILED)) {
                conditionsFailed.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
            }
            response.headers().map().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            byte[] answer = response.body();
            exchange.sendResponseHeaders(response.statusCode(), answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        } catch (IOException oncepayLeft) {
            // oncepay closed its end (its read timeout): nobody to answer
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @param stripe a form-encoded PaymentIntent: our payment id in {@code metadata[oncepay_payment_id]},
     *        the order in {@code metadata[oncepay_reference]}; else the generic PSP's JSON
     *        ({@code reference}, {@code description})
     */
    private ChargeRequest note(String idempotencyKey, byte[] body, boolean stripe) {
        String paymentId = null;
        String order = null;
        if (stripe) {
            Map<String, String> form = form(new String(body, StandardCharsets.UTF_8));
            paymentId = form.get("metadata[oncepay_payment_id]");
            order = form.getOrDefault("metadata[oncepay_reference]", form.get("description"));
        } else {
            try {
                JsonNode json = JSON.readTree(body);
                paymentId = json.path("reference").asText(null);
                order = json.path("description").asText(null);
            } catch (IOException unreadable) {
                // still a charge request; its key names the payment
            }
        }
        if (paymentId == null && idempotencyKey != null && idempotencyKey.startsWith("oncepay-")) {
            paymentId = idempotencyKey.substring("oncepay-".length());
        }
        ChargeRequest request = new ChargeRequest(System.nanoTime(), idempotencyKey, paymentId, order,
                new AtomicReference<>());
        charges.add(request);
        return request;
    }

    /** An {@code application/x-www-form-urlencoded} body; the first value of each name. */
    static Map<String, String> form(String body) {
        Map<String, String> fields = new HashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                fields.putIfAbsent(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return fields;
    }

    private static String describe(HttpResponse<byte[]> response) {
        String status = null;
        try {
            status = response.body().length == 0 ? null : JSON.readTree(response.body()).path("status").asText(null);
        } catch (IOException unreadable) {
            status = "unreadable";
        }
        boolean replayed = response.headers().firstValue("Idempotent-Replayed").isPresent();
        return response.statusCode() + (response.body().length == 0 ? " no body" : status == null ? "" : " " + status)
                + (replayed ? " replayed" : "");
    }

    @Override
    public void close() {
        server.stop(0);
        workers.shutdownNow();
    }
}
