package dev.oncepay.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.http.RawHttpRequest;
import dev.oncepay.testing.ScriptedHttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The store's HTTP transport ({@link StoreHttpClient}, the JDK's client) under the real DynamoDB
 * SDK client, against a store scripted at the socket: the request the SDK signed is the request on
 * the wire, connections are kept alive and dropped on demand, and an attempt's timeout ends a
 * stalled exchange and closes its connection. Counts and bytes, no timings. (Every test against
 * dynalite runs through this transport too.)
 */
class StoreHttpClientTest {
    private static final String EMPTY = "{}";

    private final ScriptedHttpServer.Started started = new ScriptedHttpServer.Started();

    @AfterEach
    void stop() throws Exception {
        started.close();
    }

    @Test
    void theRequestOnTheWireIsTheRequestTheSdkSigned() {
        ScriptedHttpServer store = started.start(connection -> {
            connection.readRequest();
            answerEmpty(connection);
        });
        AtomicReference<SdkHttpRequest> signed = new AtomicReference<>();
        AtomicReference<byte[]> signedBody = new AtomicReference<>();
        ExecutionInterceptor capture = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                signed.set(context.httpRequest());
                signedBody.set(context.requestBody().map(body -> read(body.contentStreamProvider().newStream())).orElse(null));
            }
        };

        try (DynamoDbClient dynamo = client(store, new StoreHttpClient(), 1, Duration.ofSeconds(5), capture)) {
            dynamo.putItem(b -> b.tableName("t").item(Map.of("pk", AttributeValue.fromS("p"), "n", AttributeValue.fromN("1")))
                    .conditionExpression("attribute_not_exists(pk)"));
        }

        RawHttpRequest wire = store.received().get(0);
        assertEquals("POST / HTTP/1.1", wire.head().get(0));
        List<String> authorization = wire.header("Authorization");
        assertEquals(1, authorization.size());
        String signedHeaders = authorization.get(0).replaceAll(".*SignedHeaders=([^,]*),.*", "$1");
        assertTrue(signedHeaders.contains("host") && signedHeaders.contains("x-amz-date"), signedHeaders);
        for (String name : signedHeaders.split(";")) {
            List<String> sent = wire.header(name);
            List<String> expected = signed.get().headers().entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase(name)).flatMap(e -> e.getValue().stream()).toList();
            assertEquals(expected, sent, "signed header " + name + " arrives once, as signed");
        }
        assertArrayEquals(signedBody.get(), wire.body());
        assertEquals(List.of(Integer.toString(wire.body().length)), wire.header("Content-Length"));
        assertTrue(wire.header("Expect").isEmpty() && wire.header("Upgrade").isEmpty(), wire.head().toString());
    }

    @Test
    void connectionsAreKeptAliveUntilForgotten() {
        ScriptedHttpServer store = started.start(connection -> {
            for (int i = 0; i < 3; i++) {
                connection.readRequest();
                answerEmpty(connection);
            }
        });
        StoreHttpClient http = new StoreHttpClient();

        try (DynamoDbClient dynamo = client(store, http, 1, Duration.ofSeconds(5))) {
            getItem(dynamo);
            getItem(dynamo);
            assertEquals(1, store.connections(), "kept alive and reused");
            http.forgetConnections();
            getItem(dynamo);
        }

        assertEquals(2, store.connections(), "after a restore, no connection of the snapshot is reused");
        assertEquals(3, store.requests());
    }

    @Test
    void anAttemptTimeoutEndsAStalledExchangeAndClosesItsConnection() throws Exception {
        CountDownLatch closedByClient = new CountDownLatch(2);
        AtomicInteger requests = new AtomicInteger();
        // The first request is answered (it warms the SDK, so no attempt below can run out of time
        // before it is sent); every later one stalls until the client closes its connection.
        ScriptedHttpServer store = started.start(connection -> {
            while (requests.getAndIncrement() == 0) {
                connection.readRequest();
                answerEmpty(connection);
            }
            connection.readRequestThenStall(closedByClient);
        });

        // The transport's own read timeout is 30 s: only the SDK's attempt timeout can end these in time.
        try (DynamoDbClient dynamo = client(store, new StoreHttpClient(), 2, Duration.ofMillis(500))) {
            getItem(dynamo);
            assertThrows(SdkClientException.class, () -> getItem(dynamo));
        }

        assertTrue(closedByClient.await(20, TimeUnit.SECONDS), "each interrupted attempt closed its connection");
        assertEquals(3, store.requests(), "the answered one, then two attempts of one request each");
        assertEquals(2, store.connections(), "the second attempt on a new connection");
        assertFalse(Thread.currentThread().isInterrupted(), "the SDK cleared its interrupt");
    }

    private static DynamoDbClient client(ScriptedHttpServer store, StoreHttpClient http, int attempts, Duration attemptTimeout,
            ExecutionInterceptor... interceptors) {
        return DynamoDbClient.builder()
                .region(Region.US_EAST_1)
                .endpointOverride(URI.create("http://127.0.0.1:" + store.port()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("key", "secret")))
                .httpClient(http)
                .overrideConfiguration(o -> o.apiCallAttemptTimeout(attemptTimeout)
                        .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(attempts).build())
                        .executionInterceptors(List.of(interceptors)))
                .build();
    }

    private static void getItem(DynamoDbClient dynamo) {
        dynamo.getItem(b -> b.tableName("t").key(Map.of("pk", AttributeValue.fromS("p"))));
    }

    private static void answerEmpty(ScriptedHttpServer.Connection connection) throws IOException {
        CRC32 crc = new CRC32();
        crc.update(EMPTY.getBytes(StandardCharsets.UTF_8));
        connection.answer(EMPTY, "x-amz-crc32: " + crc.getValue() + "\r\n");
    }

    private static byte[] read(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
