package dev.oncepay.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lambda Runtime API (2018-06-01) for one sandbox process, on 127.0.0.1: the long-polled
 * {@code GET /runtime/invocation/next} with Lambda's {@code Lambda-Runtime-*} headers, and the
 * runtime's {@code /response}, {@code /error} and {@code /init/error} posts, answered 202 as Lambda
 * does. A replacement process gets a new server, so nothing meant for a dead process reaches it.
 */
final class RuntimeApiServer {
    private static final String PREFIX = "/2018-06-01/runtime/";
    private static final Pattern INVOCATION = Pattern.compile(PREFIX + "invocation/([^/]+)/(response|error)");

    private final Sandbox sandbox;
    private final Sandbox.Generation generation;
    private final HttpServer server;
    private final ExecutorService threads;

    private RuntimeApiServer(Sandbox sandbox, Sandbox.Generation generation) throws IOException {
        this.sandbox = sandbox;
        this.generation = generation;
        this.threads = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "runtime-api-" + sandbox.label);
            t.setDaemon(true);
            return t;
        });
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    static RuntimeApiServer start(Sandbox sandbox, Sandbox.Generation generation) throws IOException {
        return new RuntimeApiServer(sandbox, generation);
    }

    int port() {
        return server.getAddress().getPort();
    }

    void stop() {
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            if (method.equals("GET") && path.equals(PREFIX + "invocation/next")) {
                next(exchange);
                return;
            }
            byte[] body = readBody(exchange.getRequestBody());
            Matcher m = INVOCATION.matcher(path);
            if (method.equals("POST") && m.matches()) {
                String requestId = m.group(1);
                if (body == null) {
                    sandbox.finished(generation, requestId, InvocationResult.failure("Function.ResponseSizeTooLarge",
                            "Response payload size exceeded maximum allowed payload size ("
                                    + LambdaFunction.MAX_RESPONSE_BYTES + " bytes)."));
                    send(exchange, 413, "{\"errorMessage\":\"payload too large\",\"errorType\":\"RequestEntityTooLarge\"}");
                    return;
                }
                InvocationResult result = m.group(2).equals("response") ? new InvocationResult.Success(body)
                        : error(exchange, body);
                if (sandbox.finished(generation, requestId, result)) {
                    send(exchange, 202, "{\"status\":\"OK\"}");
                } else {
                    send(exchange, 400, "{\"errorMessage\":\"Invalid request ID\",\"errorType\":\"InvalidRequestID\"}");
                }
            } else if (method.equals("POST") && path.equals(PREFIX + "init/error")) {
                InvocationResult.Failure f = error(exchange, body == null ? new byte[0] : body);
                sandbox.initError(generation, f.errorType(), f.errorMessage());
                send(exchange, 202, "{\"status\":\"OK\"}");
            } else {
                send(exchange, 404, "{\"errorMessage\":\"not supported by the local run\",\"errorType\":\"NotFound\"}");
            }
        } catch (IOException | RuntimeException e) {
            if (!generation.dead) {
                Log.warn(sandbox.label, "Runtime API: " + e);
            }
        }
    }

    private void next(HttpExchange exchange) throws IOException {
        Invocation invocation;
        try {
            invocation = sandbox.next(generation);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (invocation == null) {
            return; // the process is gone or the local run is stopping: drop the connection
        }
        var headers = exchange.getResponseHeaders();
        headers.set("Content-Type", "application/json");
        headers.set("Lambda-Runtime-Aws-Request-Id", invocation.requestId);
        headers.set("Lambda-Runtime-Deadline-Ms",
                Long.toString(System.currentTimeMillis() + sandbox.function.timeout.toMillis()));
        headers.set("Lambda-Runtime-Invoked-Function-Arn", sandbox.function.arn);
        headers.set("Lambda-Runtime-Trace-Id", invocation.traceId + ";Sampled=0");
        try {
            exchange.sendResponseHeaders(200, invocation.payload.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(invocation.payload);
            }
        } catch (IOException notDelivered) {
            sandbox.undelivered(generation, invocation);
            throw notDelivered;
        }
    }

    private static InvocationResult.Failure error(HttpExchange exchange, byte[] body) {
        return InvocationResult.fromErrorDocument(
                exchange.getRequestHeaders().getFirst("Lambda-Runtime-Function-Error-Type"), body);
    }

    /** The body, or null when it exceeds Lambda's response limit. */
    private static byte[] readBody(InputStream in) throws IOException {
        byte[] bytes = in.readNBytes(LambdaFunction.MAX_RESPONSE_BYTES + 1);
        if (bytes.length > LambdaFunction.MAX_RESPONSE_BYTES) {
            in.transferTo(OutputStream.nullOutputStream());
            return null;
        }
        return bytes;
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
