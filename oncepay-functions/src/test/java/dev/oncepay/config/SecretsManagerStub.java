package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.net.http.HttpResponse;
import java.net.http.HttpRequest;
import java.net.http.HttpClient;
import java.io.UncheckedIOException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local stand-in for Secrets Manager's JSON API ({@code GetSecretValue}, and {@code PutSecretValue}
 * for a rotation: a POST with {@code X-Amz-Target}), so the SDK client is exercised over real HTTP
 * without AWS.
 */
public final class SecretsManagerStub implements AutoCloseable {
    static final String TARGET = "secretsmanager.GetSecretValue";
    /** A rotation: a new value for a secret ({@code SecretId}, {@code SecretString}), as a rotation function puts it. */
    public static final String PUT_TARGET = "secretsmanager.PutSecretValue";
    static final String CONTENT_TYPE = "application/x-amz-json-1.1";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request as received. */
    record Request(Map<String, List<String>> headers, JsonNode body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }
    }

    private record Failure(int status, String body) {
    }

    private final HttpServer server;
    private final Map<String, String> secretStrings = new ConcurrentHashMap<>();
    private final Map<String, String> secretBinaries = new ConcurrentHashMap<>();
    private final Deque<Failure> failures = new ArrayDeque<>();
    public final List<Request> requests = new CopyOnWriteArrayList<>();

    public SecretsManagerStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    public SecretsManagerStub secret(String id, String secretString) {
        secretStrings.put(id, secretString);
        return this;
    }

    SecretsManagerStub binarySecret(String id, String base64) {
        secretBinaries.put(id, base64);
        return this;
    }

    /** The next request fails so, before any secret is looked up. */
    synchronized SecretsManagerStub failNext(int status, String awsType, String message) {
        failures.add(new Failure(status, JSON.createObjectNode().put("__type", awsType).put("message", message).toString()));
        return this;
    }

    private void answer(HttpExchange exchange) throws IOException {
        JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
        Request request = new Request(Map.copyOf(exchange.getRequestHeaders()), body);
        requests.add(request);
        Failure failure;
        synchronized (this) {
            failure = failures.poll();
        }
        if (failure != null) {
            respond(exchange, failure.status(), failure.body());
            return;
        }
        if (PUT_TARGET.equals(request.header("X-Amz-Target"))) {
            String id = body.path("SecretId").asText();
            secretStrings.put(id, body.path("SecretString").asText());
            respond(exchange, 200, JSON.createObjectNode().put("ARN", id).put("Name", id).toString());
            return;
        }
        if (!TARGET.equals(request.header("X-Amz-Target"))) {
            respond(exchange, 400, "{\"__type\":\"UnknownOperationException\"}");
            return;
        }
        String id = body.path("SecretId").asText();
        if (secretStrings.containsKey(id)) {
            respond(exchange, 200, JSON.createObjectNode().put("ARN", id).put("Name", id)
                    .put("SecretString", secretStrings.get(id)).toString());
        } else if (secretBinaries.containsKey(id)) {
            respond(exchange, 200, JSON.createObjectNode().put("ARN", id).put("SecretBinary", secretBinaries.get(id)).toString());
        } else {
            respond(exchange, 400, JSON.createObjectNode().put("__type", "ResourceNotFoundException")
                    .put("message", "Secrets Manager can't find the specified secret.").toString());
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", CONTENT_TYPE);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /**
     * A function's configuration as on Lambda, with its one secret at a new stand-in that stays up for
     * the JVM (the application reads it again at each restore): the secret's ARN listed, the
     * endpoint pointed at the stand-in, and credentials the reader's default chain finds (any do).
     */
    public static Map<String, String> lambdaWithSecret(String function, String secretId, String secretString) {
        SecretsManagerStub stub;
        try {
            System.setProperty("aws.accessKeyId", "AKIDEXAMPLE");
            System.setProperty("aws.secretAccessKey", "secret");
            stub = new SecretsManagerStub().secret(secretId, secretString);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of(
                "quarkus.funqy.export", function,
                DeploymentSettings.ENV_SECRET_ARNS, secretId,
                // Only the secrets factory reads it from the configuration; the poll loop reads the real environment.
                DeploymentSettings.ENV_LAMBDA_RUNTIME_API, "127.0.0.1:9",
                "AWS_REGION", "us-east-1",
                "AWS_ENDPOINT_URL_SECRETS_MANAGER", stub.endpoint().toString());
    }

    /** Puts a new value of {@code secretId} at the stand-in listening at {@code endpoint}, as PutSecretValue. */
    public static void put(URI endpoint, String secretId, String secretString) throws IOException, InterruptedException {
        String body = JSON.writeValueAsString(Map.of("SecretId", secretId, "SecretString", secretString));
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(endpoint)
                .header("X-Amz-Target", PUT_TARGET).header("Content-Type", CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("PutSecretValue answered " + answer.statusCode() + ": " + answer.body());
        }
    }

}
