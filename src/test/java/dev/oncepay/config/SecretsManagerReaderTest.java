package dev.oncepay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/** GetSecretValue against a local stand-in for Secrets Manager's JSON API: no AWS needed. */
class SecretsManagerReaderTest {
    private static final String ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay-AbCdEf";

    private HttpServer server;
    private final Deque<int[]> statuses = new ArrayDeque<>();
    private final Deque<String> bodies = new ArrayDeque<>();
    private final List<Map<String, List<String>>> requestHeaders = new ArrayList<>();
    private final List<String> requestBodies = new ArrayList<>();
    private SdkHttpClient http;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
        http = UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        http.close();
    }

    @Test
    void sendsASignedGetSecretValueAndReturnsTheSecretString() {
        respond(200, "{\"ARN\":\"" + ARN + "\",\"Name\":\"oncepay\",\"SecretString\":\"{\\\"k\\\":\\\"v\\\"}\"}");

        assertEquals("{\"k\":\"v\"}", reader().secretString(ARN));

        Map<String, List<String>> headers = requestHeaders.get(0);
        assertEquals(List.of(SecretsManagerReader.TARGET), headers.get("X-amz-target"));
        assertEquals(List.of(SecretsManagerReader.CONTENT_TYPE), headers.get("Content-type"));
        String authorization = headers.get("Authorization").get(0);
        assertTrue(authorization.startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"), authorization);
        assertTrue(authorization.contains("/eu-west-1/secretsmanager/aws4_request"), authorization);
        assertTrue(authorization.contains("x-amz-target"), "the target header is signed: " + authorization);
        assertEquals(List.of("session-token"), headers.get("X-amz-security-token"));
        assertEquals("{\"SecretId\":\"" + ARN + "\"}", requestBodies.get(0));
    }

    @Test
    void retriesServerErrorsAndThrottling() {
        respond(500, "{\"__type\":\"InternalServiceError\"}");
        respond(400, "{\"__type\":\"ThrottlingException\",\"message\":\"Rate exceeded\"}");
        respond(200, "{\"SecretString\":\"s\"}");

        assertEquals("s", reader().secretString(ARN));
        assertEquals(3, requestBodies.size());
    }

    @Test
    void anAccessErrorFailsAtOnceWithAwsTypeAndMessage() {
        respond(400, "{\"__type\":\"AccessDeniedException\",\"message\":\"not authorized to perform GetSecretValue\"}");

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> reader().secretString(ARN));
        assertTrue(e.getMessage().contains("AccessDeniedException"), e.getMessage());
        assertTrue(e.getMessage().contains(ARN), e.getMessage());
        assertEquals(1, requestBodies.size());
    }

    @Test
    void aBinarySecretIsRefusedWithoutQuotingIt() {
        respond(200, "{\"SecretBinary\":\"VkFMVUUtMQ==\"}");

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> reader().secretString(ARN));
        assertTrue(e.getMessage().contains("no SecretString"), e.getMessage());
        assertFalse(e.getMessage().contains("VkFMVUUtMQ"), e.getMessage());
    }

    @Test
    void givesUpAfterThreeAttempts() {
        for (int i = 0; i < 3; i++) {
            respond(503, "");
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> reader().secretString(ARN));
        assertTrue(e.getMessage().contains("HTTP 503"), e.getMessage());
        assertEquals(3, requestBodies.size());
    }

    @Test
    void theRegionComesFromTheArnElseFromTheEnvironment() {
        assertEquals(Optional.of("eu-west-1"), SecretsManagerReader.regionOf(ARN));
        assertEquals(Optional.of("cn-north-1"),
                SecretsManagerReader.regionOf("arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:x:y"));
        assertEquals(Optional.empty(), SecretsManagerReader.regionOf("oncepay/prod"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> SecretsManagerReader.read("oncepay/prod", name -> Optional.empty()));
        assertTrue(e.getMessage().contains("AWS_REGION"), e.getMessage());
    }

    private SecretsManagerReader reader() {
        return new SecretsManagerReader(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "eu-west-1",
                StaticCredentialsProvider.create(AwsSessionCredentials.create("AKIDEXAMPLE", "secret", "session-token")),
                http);
    }

    private void respond(int status, String body) {
        statuses.add(new int[] { status });
        bodies.add(body);
    }

    private void answer(HttpExchange exchange) throws IOException {
        requestHeaders.add(Map.copyOf(exchange.getRequestHeaders()));
        requestBodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        int status = statuses.isEmpty() ? 500 : statuses.poll()[0];
        byte[] body = (bodies.isEmpty() ? "" : bodies.poll()).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", SecretsManagerReader.CONTENT_TYPE);
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            exchange.getResponseBody().write(body);
        }
        exchange.close();
    }
}
