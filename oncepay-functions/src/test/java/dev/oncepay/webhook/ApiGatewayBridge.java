package dev.oncepay.webhook;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.oncepay.api.WebhooksHttp;
import dev.oncepay.sim.StripeMode;
import dev.oncepay.sim.WebhookSignature;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.HttpApiEvents;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * What API Gateway does for the webhook route, in a test: accepts the simulator's real HTTP
 * deliveries on {@code POST /webhooks/{provider}}, turns each into HTTP API event JSON, invokes
 * the function (through the Lambda mock event server, or the entry method of an application that
 * exports another function), and answers with the function's response. So the simulator's
 * asynchronous, duplicated, retried deliveries reach the real entry point.
 */
public final class ApiGatewayBridge implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(8);
    /** Invokes the webhook function with HTTP API event JSON. */
    private final Function<String, ApiResponse> function;

    /** Invokes the webhook function the application exports, through the Lambda mock event server. */
    ApiGatewayBridge() throws IOException {
        this(WebhookRequests::call);
    }

    /** @param function invokes the webhook function with HTTP API event JSON */
    public ApiGatewayBridge(Function<String, ApiResponse> function) throws IOException {
        this.function = function;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 32);
        server.setExecutor(threads);
        server.createContext(WebhooksHttp.PREFIX, this::handle);
        server.start();
    }

    public URI webhookUrl(String provider) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + WebhooksHttp.PREFIX + provider);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String provider = exchange.getRequestURI().getPath().substring(WebhooksHttp.PREFIX.length());
            byte[] body = exchange.getRequestBody().readAllBytes();
            String signatureHeader = exchange.getRequestHeaders().containsKey(StripeMode.SIGNATURE_HEADER)
                    ? StripeMode.SIGNATURE_HEADER : WebhookSignature.HEADER;
            String signature = exchange.getRequestHeaders().getFirst(signatureHeader);
            // Like API Gateway, pass bytes that are not UTF-8 text base64-encoded, never repaired.
            ApiResponse response = function.apply(HttpApiEvents.isUtf8(body)
                    ? WebhookRequests.event(provider, new String(body, StandardCharsets.UTF_8), signatureHeader,
                            signature)
                    : WebhookRequests.base64Event(provider, body, signatureHeader, signature));
            // A failed invocation is a 500 at API Gateway.
            int status = response.status() < 0 ? 500 : response.status();
            byte[] out = response.body() == null ? new byte[0] : response.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                try (OutputStream os = exchange.getResponseBody()) {
                    os.write(out);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
