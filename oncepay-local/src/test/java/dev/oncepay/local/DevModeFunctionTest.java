package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.oncepay.testkit.FreePorts;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the local run invokes a function in a dev-mode JVM, against an HTTP server that answers as
 * Quarkus' Lambda mock event server does: the event posted to {@code /_lambda_}, the function's
 * output as {@code 200}, its error document as {@code 500}; and what the gateway gets when no dev
 * JVM listens. The real dev JVM is {@link DevLoopTest}'s.
 */
class DevModeFunctionTest {
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void theEventGoesToTheMockEventServerAndItsAnswerIsTheResult() throws Exception {
        AtomicReference<String> received = new AtomicReference<>();
        int port = mockEventServer(exchange -> {
            received.set(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                    + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            return Map.entry(200, "{\"statusCode\":201}");
        });
        InvocationResult result = new DevModeFunction("charge", port, Duration.ofSeconds(5))
                .submit("{\"version\":\"2.0\"}".getBytes(StandardCharsets.UTF_8), "Root=1-x").result()
                .get(10, TimeUnit.SECONDS);
        assertEquals("POST /_lambda_ {\"version\":\"2.0\"}", received.get());
        InvocationResult.Success success = assertInstanceOf(InvocationResult.Success.class, result);
        assertArrayEquals("{\"statusCode\":201}".getBytes(StandardCharsets.UTF_8), success.payload());
        assertEquals("charge (dev mode)", success.sandbox());
    }

    @Test
    void aFunctionErrorIsLambdasFailure() throws Exception {
        int port = mockEventServer(exchange -> Map.entry(500,
                "{\"errorType\":\"java.lang.IllegalStateException\",\"errorMessage\":\"boom\"}"));
        InvocationResult result = new DevModeFunction("charge", port, Duration.ofSeconds(5))
                .submit(new byte[0], "Root=1-x").result().get(10, TimeUnit.SECONDS);
        InvocationResult.Failure failure = assertInstanceOf(InvocationResult.Failure.class, result);
        assertEquals("java.lang.IllegalStateException", failure.errorType());
        assertEquals("boom", failure.errorMessage());
    }

    @Test
    void withoutADevJvmTheFailureSaysHowToStartOne() throws Exception {
        int nobody = FreePorts.next();
        InvocationResult result = new DevModeFunction("charge", nobody, Duration.ofSeconds(5))
                .submit(new byte[0], "Root=1-x").result().get(10, TimeUnit.SECONDS);
        InvocationResult.Failure failure = assertInstanceOf(InvocationResult.Failure.class, result);
        assertEquals("ServiceException", failure.errorType());
        assertTrue(failure.errorMessage().contains("./run-local.sh --dev"), failure.errorMessage());
    }

    @Test
    void theEnvironmentFileHasOneVariablePerLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("dev/charge.env");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ONCEPAY_TABLE", "oncepay-local");
        env.put("ONCEPAY_PROVIDER_ROUTING", "{\"oncepay.provider.tenants.merchant-b\":\"stripe\"}");
        DevModeFunction.writeEnvironment(file, env);
        assertEquals(List.of("ONCEPAY_TABLE=oncepay-local",
                "ONCEPAY_PROVIDER_ROUTING={\"oncepay.provider.tenants.merchant-b\":\"stripe\"}"), Files.readAllLines(file));
        assertThrows(IllegalArgumentException.class,
                () -> DevModeFunction.writeEnvironment(file, Map.of("BROKEN", "a\nb")));
    }

    private interface Answer {
        Map.Entry<Integer, String> answer(com.sun.net.httpserver.HttpExchange exchange) throws IOException;
    }

    private int mockEventServer(Answer answer) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", exchange -> {
            try (exchange) {
                Map.Entry<Integer, String> a = answer.answer(exchange);
                byte[] body = a.getValue().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(a.getKey(), body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        server.start();
        return server.getAddress().getPort();
    }
}
