package dev.oncepay.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The local stand-in for API Gateway (HTTP API, Lambda proxy integrations, payload format 2.0) on
 * 127.0.0.1: routes requests, turns each into the v2 event its function receives, and the
 * function's output back into HTTP; function errors become {@code 502}, an integration timeout
 * {@code 503}, unknown routes {@code 404}, as on AWS.
 *
 * <p>Locally only, the {@code X-Tenant-Id} header stands in for the JWT authorizer of the
 * {@code /payments} routes: its value becomes the {@code tenant_id} claim. No token is verified;
 * production never takes a tenant from a client header.
 *
 * <p>Local only, under {@code /_local/} (no API Gateway route can start with it), the run answers
 * about itself, for the benchmark and the curious: {@code GET /_local/sandboxes} lists every
 * sandbox (function, slot, generation, pid, state, its process's {@code initMs} — start to first
 * {@code GET /invocation/next} — and {@code firstInvocationMs} — its first invocation from hand-out
 * to posted answer, Lambda's REPORT {@code Init Duration} and {@code Duration} — and its
 * invocations and {@code busyMs}, their summed durations); {@code POST
 * /_local/sandboxes/{function}/{slot}/recycle} ends an idle sandbox's process (SIGKILL) and leaves
 * it cold, so the next invocation pays a cold start; {@code POST /_local/schedule/{function}} sends
 * the function the EventBridge schedule's event now and answers once it has run.
 */
final class ApiGateway implements AutoCloseable {
    static final String TENANT_HEADER = "X-Tenant-Id";
    /** Names the operator of an {@code /admin} request (passed through; the charge function trusts it locally). */
    static final String OPERATOR_HEADER = "X-Operator-Id";
    /** API Gateway's payload limit. */
    static final int MAX_REQUEST_BYTES = 10 * 1024 * 1024;
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "content-length", "transfer-encoding",
            "keep-alive", "date");

    private final List<HttpApiV2.Route> routes;
    private final BiFunction<String, byte[], Invocation> invoker;
    private final Function<String, Duration> integrationTimeout;
    private final Supplier<List<LambdaFunction>> functions;
    private final HttpServer server;
    private final ExecutorService threads;

    /**
     * @param invoker starts an invocation of a function by name with an event
     * @param integrationTimeout how long to wait for each function, from the moment it runs
     */
    ApiGateway(int port, List<HttpApiV2.Route> routes,
            BiFunction<String, byte[], Invocation> invoker,
            Function<String, Duration> integrationTimeout)
            throws IOException {
        this(port, routes, invoker, integrationTimeout, List::of);
    }

    /** @param functions the run's functions, for the {@code /_local/} routes */
    ApiGateway(int port, List<HttpApiV2.Route> routes,
            BiFunction<String, byte[], Invocation> invoker,
            Function<String, Duration> integrationTimeout,
            Supplier<List<LambdaFunction>> functions)
            throws IOException {
        this.routes = routes;
        this.invoker = invoker;
        this.integrationTimeout = integrationTimeout;
        this.functions = functions;
        this.threads = Executors.newFixedThreadPool(32, r -> {
            Thread t = new Thread(r, "api-gateway");
            t.setDaemon(true);
            return t;
        });
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.createContext(LOCAL_PREFIX, this::local);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    // --- the local run's own routes ----------------------------------------------------------

    static final String LOCAL_PREFIX = "/_local/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private void local(HttpExchange exchange) {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String[] path = exchange.getRequestURI().getPath().substring(LOCAL_PREFIX.length()).split("/");
            ObjectNode answer;
            int status = 200;
            if (method.equals("GET") && path.length == 1 && path[0].equals("sandboxes")) {
                answer = JSON.createObjectNode();
                ArrayNode list = answer.putArray("sandboxes");
                functions.get().forEach(f -> f.sandboxes().forEach(s -> list.add(JSON.valueToTree(s.status()))));
            } else if (method.equals("POST") && path.length == 4 && path[0].equals("sandboxes")
                    && path[3].equals("recycle")) {
                Sandbox sandbox = sandbox(path[1], path[2]);
                if (sandbox == null) {
                    status = 404;
                    answer = JSON.createObjectNode().put("error", "no sandbox " + path[1] + "#" + path[2]);
                } else {
                    boolean recycled = sandbox.recycle();
                    status = recycled ? 200 : 409;
                    answer = JSON.valueToTree(sandbox.status());
                    answer.put("recycled", recycled);
                }
            } else if (method.equals("POST") && path.length == 2 && path[0].equals("schedule")) {
                byte[] event = EventBridgeSchedule.scheduledEvent(UUID.randomUUID().toString(), Instant.now())
                        .toString().getBytes(StandardCharsets.UTF_8);
                long started = System.nanoTime();
                InvocationResult result = invoker.apply(path[1], event).result().get(5, TimeUnit.MINUTES);
                answer = JSON.createObjectNode()
                        .put("ok", result instanceof InvocationResult.Success)
                        .put("sandbox", result.sandbox())
                        .put("ms", (System.nanoTime() - started) / 1e6)
                        .put("result", result.describe());
            } else {
                status = 404;
                answer = JSON.createObjectNode().put("error", method + " " + exchange.getRequestURI().getPath()
                        + ": the local run has GET /_local/sandboxes, POST /_local/sandboxes/{function}/{slot}/recycle,"
                        + " POST /_local/schedule/{function}");
            }
            byte[] body = JSON.writeValueAsBytes(answer);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (IOException clientGone) {
            // nothing to answer
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Log.warn("gateway", "cannot serve " + exchange.getRequestURI() + ": " + e);
        }
    }

    private Sandbox sandbox(String function, String slot) {
        return functions.get().stream().filter(f -> f.name.equals(function))
                .flatMap(f -> f.sandboxes().stream()).filter(s -> Integer.toString(s.slot).equals(slot))
                .findFirst().orElse(null);
    }

    private void handle(HttpExchange exchange) {
        long started = System.nanoTime();
        String requestId = requestId();
        String[] target = {"-"};
        HttpApiV2.Response response;
        try (exchange) {
            try {
                byte[] body = readBody(exchange.getRequestBody());
                HttpApiV2.Request request = request(exchange, body);
                Routed routed = body == null ? null : route(request);
                if (body == null) {
                    response = HttpApiV2.Response.message(413, "Request Entity Too Large");
                } else if (routed == null) {
                    response = HttpApiV2.Response.message(404, "Not Found");
                } else {
                    target[0] = routed.route.function();
                    response = dispatch(request, routed, requestId, target);
                }
            } catch (RuntimeException e) {
                Log.warn("gateway", "cannot serve " + exchange.getRequestURI() + ": " + e);
                response = HttpApiV2.Response.message(500, "Internal Server Error");
            }
            write(exchange, response, requestId);
            Log.info("gateway", String.format("%s %s -> %s %d (%d ms) %s", exchange.getRequestMethod(),
                    exchange.getRequestURI(), target[0], response.status(), (System.nanoTime() - started) / 1_000_000,
                    requestId));
        } catch (IOException clientGone) {
            // the client went away; nothing to answer
        }
    }

    private record Routed(HttpApiV2.Route route, Map<String, String> pathParameters) {
    }

    private Routed route(HttpApiV2.Request request) {
        for (HttpApiV2.Route r : routes) {
            Map<String, String> params = r.match(request.method(), request.rawPath());
            if (params != null) {
                return new Routed(r, params);
            }
        }
        return null;
    }

    /** @param target the function's name; set to the sandbox that ran it, once known (for the access log) */
    private HttpApiV2.Response dispatch(HttpApiV2.Request request, Routed routed, String requestId, String[] target) {
        String tenant = null;
        if (routed.route.authorized()) {
            tenant = request.header(TENANT_HEADER);
            if (tenant == null || tenant.isBlank()) {
                // What the JWT authorizer answers to a request without a token.
                HttpApiV2.Response r = HttpApiV2.Response.message(401, "Unauthorized");
                List<Map.Entry<String, String>> headers = new ArrayList<>(r.headers());
                headers.add(Map.entry("www-authenticate", "Bearer"));
                return new HttpApiV2.Response(401, headers, r.body());
            }
        }
        ObjectNode event = HttpApiV2.event(request, routed.route, routed.pathParameters, requestId, Instant.now(),
                tenant);
        String trace = event.path("headers").path("x-amzn-trace-id").asText();
        Invocation pending = invoker.apply(routed.route.function(), event.toString().getBytes(StandardCharsets.UTF_8));
        InvocationResult result;
        Duration timeout = integrationTimeout.apply(routed.route.function());
        try {
            // Lambda starts an execution environment for a synchronous invocation at once; locally it
            // may wait for a busy sandbox. The integration timeout runs from the start, so the wait
            // cannot push a run past the moment its caller is answered (the Lambda timeouts stay
            // under the integration timeouts, as infra/ sets them); one that never starts never runs.
            try {
                CompletableFuture.anyOf(pending.running(), pending.result()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException notStarted) {
                pending.fail("Lambda.TooManyRequestsException", "no sandbox free within the integration timeout");
                throw notStarted;
            }
            result = pending.result().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // HTTP API answers 503 when its integration times out; a function already running goes on.
            Log.warn("gateway", routed.route.function() + " did not answer within the integration timeout ("
                    + timeout.toMillis() + " ms), trace " + trace);
            return HttpApiV2.Response.message(503, "Service Unavailable");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return HttpApiV2.Response.message(503, "Service Unavailable");
        } catch (ExecutionException e) {
            return HttpApiV2.Response.message(500, "Internal Server Error");
        }
        if (result.sandbox() != null) {
            target[0] = result.sandbox();
        }
        if (result instanceof InvocationResult.Failure f) {
            Log.warn("gateway", routed.route.function() + " failed: " + f.errorType() + ": " + f.errorMessage());
            // Lambda could not even be invoked (ResourceNotFound, throttled, stopping): 500; a function error: 502.
            int status = f.errorType().endsWith("Exception") ? 500 : 502;
            return HttpApiV2.Response.message(status, "Internal Server Error");
        }
        try {
            return HttpApiV2.response(((InvocationResult.Success) result).payload());
        } catch (HttpApiV2.MalformedResponse e) {
            Log.warn("gateway", routed.route.function() + " returned a malformed response: " + e.getMessage());
            return HttpApiV2.Response.message(502, "Internal Server Error");
        }
    }

    private static HttpApiV2.Request request(HttpExchange exchange, byte[] body) {
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        exchange.getRequestHeaders().forEach((name, values) -> values.forEach(v -> headers.add(Map.entry(name, v))));
        String rawPath = exchange.getRequestURI().getRawPath();
        String sourceIp = exchange.getRemoteAddress().getAddress().getHostAddress();
        return new HttpApiV2.Request(exchange.getRequestMethod(), rawPath, exchange.getRequestURI().getRawQuery(),
                headers, body == null ? new byte[0] : body, sourceIp, exchange.getProtocol());
    }

    private static void write(HttpExchange exchange, HttpApiV2.Response response, String requestId) throws IOException {
        var headers = exchange.getResponseHeaders();
        for (Map.Entry<String, String> h : response.headers()) {
            if (!HOP_BY_HOP.contains(h.getKey().toLowerCase())) {
                headers.add(h.getKey(), h.getValue());
            }
        }
        headers.set("Apigw-Requestid", requestId);
        byte[] body = response.body();
        boolean noBody = body.length == 0 || exchange.getRequestMethod().equals("HEAD")
                || response.status() == 204 || response.status() == 304;
        exchange.sendResponseHeaders(response.status(), noBody ? -1 : body.length);
        if (!noBody) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static byte[] readBody(InputStream in) throws IOException {
        byte[] bytes = in.readNBytes(MAX_REQUEST_BYTES + 1);
        if (bytes.length > MAX_REQUEST_BYTES) {
            return null;
        }
        return bytes;
    }

    /** API Gateway's request ids look like {@code Jx1yZgqdFiAEMEw=}; any unique token serves locally. */
    private static String requestId() {
        return UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }
}
