package dev.oncepay.local;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A function served by a Quarkus dev-mode JVM ({@code ./mvnw quarkus:dev}) instead of sandboxes,
 * for live coding behind the local API. Its invocations go to the dev JVM's Lambda mock event
 * server (Quarkus' own Runtime API in dev mode), whose poll loop looks for changed sources before it
 * runs each invocation: after a save, the next request recompiles, restarts the app inside the same
 * JVM and is then served by the new code. The dev JVM gets the function's environment from the file
 * {@link #writeEnvironment} writes; {@code ./run-local.sh --dev} exports it before starting Quarkus.
 */
final class DevModeFunction {
    /** The mock event server's synchronous invoke: POST the event, the answer is the function's output. */
    private static final String INVOKE_PATH = "/_lambda_";

    final String name;
    final int port;
    private final Duration timeout;
    private final URI invoke;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    DevModeFunction(String name, int port, Duration timeout) {
        this.name = name;
        this.port = port;
        this.timeout = timeout;
        this.invoke = URI.create("http://127.0.0.1:" + port + INVOKE_PATH);
    }

    /** Starts an invocation in the dev JVM; the result is its output, or Lambda's error if it failed or is not there. */
    Invocation submit(byte[] event, String traceId) {
        Invocation invocation = new Invocation(event, traceId);
        invocation.start();
        // A hot reload (recompiling, restarting the app) happens inside this wait, hence the function's timeout.
        HttpRequest request = HttpRequest.newBuilder(invoke).timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Lambda-Runtime-Aws-Request-Id", invocation.requestId)
                .POST(HttpRequest.BodyPublishers.ofByteArray(event))
                .build();
        http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .whenComplete((response, error) -> invocation.complete(
                        (error != null ? unreachable(error) : result(response)).ranIn(label())));
        return invocation;
    }

    String label() {
        return name + " (dev mode)";
    }

    /** The mock event server answers 200 with the output (204: none), 500 with Lambda's error document. */
    private static InvocationResult result(HttpResponse<byte[]> response) {
        return switch (response.statusCode()) {
            case 200 -> new InvocationResult.Success(response.body());
            case 204 -> new InvocationResult.Success(new byte[0]);
            case 500 -> InvocationResult.fromErrorDocument(null, response.body());
            default -> InvocationResult.failure("ServiceException", "the dev-mode JVM answered "
                    + response.statusCode() + " (stopping?)");
        };
    }

    private InvocationResult unreachable(Throwable error) {
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        if (cause instanceof HttpTimeoutException) {
            return InvocationResult.failure("Sandbox.Timedout", "the dev-mode JVM did not answer within "
                    + timeout.toSeconds() + " s");
        }
        if (cause instanceof ConnectException) {
            return InvocationResult.failure("ServiceException", "no dev-mode JVM on 127.0.0.1:" + port
                    + " yet: ./run-local.sh --dev starts it (./mvnw quarkus:dev)");
        }
        return InvocationResult.failure("ServiceException", "the dev-mode JVM failed the invocation: " + cause);
    }

    /**
     * Writes {@code env} as {@code KEY=VALUE} lines, one per variable, for the shell to export; a
     * value cannot span lines.
     */
    static void writeEnvironment(Path file, Map<String, String> env) throws IOException {
        env.forEach((key, value) -> {
            if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("environment variable " + key + " spans lines");
            }
        });
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        // Written whole, then moved in place: the script waiting for the file never reads half of it.
        Path partial = Files.createTempFile(parent, "dev-mode", ".env");
        Files.writeString(partial, env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n", "", "\n")), StandardCharsets.UTF_8);
        Files.move(partial, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
