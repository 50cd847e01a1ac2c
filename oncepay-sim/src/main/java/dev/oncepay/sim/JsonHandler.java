package dev.oncepay.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Base for the simulator's endpoints: turns {@link ApiError} into the provider's JSON error shape
 * and makes sure every exchange is closed, whatever the handler did.
 */
abstract class JsonHandler implements HttpHandler {

    protected final ObjectMapper json;

    JsonHandler(ObjectMapper json) {
        this.json = json;
    }

    /** Serves one exchange; may throw {@link ApiError}, or close the exchange itself to drop it. */
    protected abstract void serve(HttpExchange exchange) throws IOException, InterruptedException;

    @Override
    public final void handle(HttpExchange exchange) {
        try {
            serve(exchange);
        } catch (ApiError e) {
            e.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
            send(exchange, e.status(), e.body(json));
        } catch (InterruptedException e) {
            // The simulator is shutting down: drop the connection, there is nobody to answer.
            Thread.currentThread().interrupt();
        } catch (RuntimeException | IOException e) {
            // A simulator bug must not pass for a provider fault that the code under test retries.
            System.err.println("PSP simulator: unexpected failure serving " + exchange.getRequestMethod() + " "
                    + exchange.getRequestURI());
            e.printStackTrace();
            send(exchange, 500, new ApiError(500, "simulator_error", String.valueOf(e)).body(json));
        } finally {
            exchange.close();
        }
    }

    protected void send(HttpExchange exchange, int status, JsonNode body) {
        try {
            send(exchange, status, json.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Writes a complete JSON answer ({@code ""}: no body at all, e.g. a {@code 204}); a client that
     * already gave up is not an error here.
     */
    protected void send(HttpExchange exchange, int status, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        try {
            // -1: Content-Length 0 (0 would mean a chunked body)
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        } catch (IOException clientGone) {
            // e.g. the client timed out during commit-then-timeout: nothing left to tell it
        }
    }

    protected JsonNode readJson(HttpExchange exchange) throws IOException {
        byte[] raw = exchange.getRequestBody().readAllBytes();
        return parseJson(raw);
    }

    protected JsonNode parseJson(byte[] raw) {
        try {
            JsonNode node = json.readTree(raw);
            if (node == null || node.isMissingNode()) {
                throw ApiError.invalidRequest("request body must be JSON");
            }
            return node;
        } catch (IOException e) {
            throw ApiError.invalidRequest("request body is not valid JSON");
        }
    }

    static void requireMethod(HttpExchange exchange, String... allowed) {
        for (String method : allowed) {
            if (method.equals(exchange.getRequestMethod())) {
                return;
            }
        }
        throw new ApiError(405, "method_not_allowed",
                exchange.getRequestMethod() + " not allowed on " + exchange.getRequestURI().getPath(),
                Map.of("Allow", String.join(", ", allowed)));
    }

    /** HttpServer contexts match by prefix; the provider's paths are exact. */
    static void requirePath(HttpExchange exchange, String path) {
        if (!path.equals(exchange.getRequestURI().getPath())) {
            throw new ApiError(404, "not_found", "no such endpoint: " + exchange.getRequestURI().getPath());
        }
    }

    /** The decoded value of query parameter {@code name}, {@code ""} when it has none, null when absent. */
    static String queryParameter(HttpExchange exchange, String name) {
        String query = exchange.getRequestURI().getRawQuery();
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            if (key.equals(name)) {
                return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
