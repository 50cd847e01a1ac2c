package dev.oncepay.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.http.RawHttpRequest;
import dev.oncepay.testing.ScriptedHttpServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The store's HTTP transport as the application builds it: the extension's DynamoDB client (the
 * SDK's url-connection client, {@link DynamoDbClientProducer}'s 3 attempts, the attempt and call
 * timeouts of application.properties) against a store scripted at the socket. Counts, no timings:
 * requests and connections as the store saw them, attempts as the SDK counted them
 * ({@link DynamoRequestCounter}).
 */
@QuarkusTest
@WithTestResource(value = StoreTransportTest.ScriptedStore.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class StoreTransportTest {
    private static final String EMPTY = "{}";
    /** {@code sun.net.www.http.KeepAliveCache}'s default, for a server that names none. */
    private static final Duration KEEP_ALIVE_LIFETIME = Duration.ofSeconds(5);

    @Inject
    DynamoDbClient dynamo;

    @Inject
    DynamoRequestCounter counter;

    private int connectionsBefore;
    private int requestsBefore;
    private long attemptsBefore;

    @BeforeEach
    void countFromHere() {
        connectionsBefore = ScriptedStore.server.connections();
        requestsBefore = ScriptedStore.server.requests();
        attemptsBefore = counter.attempts();
    }

    /** Healthy again, and no connection of this test's script is left for the next test's first call. */
    @AfterEach
    void healthyAgain() throws IOException {
        ScriptedStore.script = StoreTransportTest::answerEveryRequest;
        ScriptedStore.closeConnections();
    }

    @Test
    void theSdksUrlConnectionClientSendsTheSignedRequestOverHttp11AndKeepsTheConnection() {
        dynamo.putItem(b -> b.tableName("oncepay-test")
                .item(Map.of("pk", AttributeValue.fromS("p"), "n", AttributeValue.fromN("1")))
                .conditionExpression("attribute_not_exists(pk)"));
        getItem();

        RawHttpRequest wire = ScriptedStore.server.received().get(requestsBefore);
        assertEquals("POST / HTTP/1.1", wire.head().get(0));
        assertTrue(wire.header("User-Agent").get(0).contains("http#UrlConnection"), wire.header("User-Agent").toString());
        String signedHeaders = wire.header("Authorization").get(0).replaceAll(".*SignedHeaders=([^,]*),.*", "$1");
        assertTrue(signedHeaders.contains("host") && signedHeaders.contains("x-amz-date"), signedHeaders);
        assertEquals(List.of(Integer.toString(wire.body().length)), wire.header("Content-Length"));
        assertEquals(2, requests());
        assertEquals(1, connections(), "the second call on the kept-alive connection");
        assertEquals(2, attempts());
    }

    /** How a kept-alive connection ends on the store's side: closed, or reset (a peer that is gone). */
    enum Ending {
        CLOSED, RESET
    }

    /**
     * After a SnapStart restore the snapshot's connections are long dead. Before each POST the
     * url-connection client probes a pooled connection ({@code HttpURLConnection} reads it for 1 ms)
     * and opens a new one when the store has closed it, so no attempt is spent on it.
     */
    @ParameterizedTest
    @EnumSource(Ending.class)
    void aKeptAliveConnectionTheStoreEndedIsNeverWrittenTo(Ending ending) throws Exception {
        CountDownLatch ended = new CountDownLatch(1);
        AtomicInteger accepted = new AtomicInteger();
        ScriptedStore.script = connection -> {
            connection.readRequest();
            answerEmpty(connection);
            if (accepted.getAndIncrement() == 0) {
                if (ending == Ending.RESET) {
                    connection.reset();
                }
                connection.socket().close();
                ended.countDown();
            } else {
                answerEveryRequest(connection);
            }
        };

        getItem();
        assertTrue(ended.await(20, TimeUnit.SECONDS), "the store ended the first connection");
        getItem();

        assertEquals(2, requests());
        assertEquals(2, connections(), "the second call on a new connection");
        assertEquals(2, attempts(), "and no attempt spent on the dead one");
    }

    /**
     * A pooled connection is reused only within its keep-alive lifetime ({@code HttpURLConnection}'s
     * 5 s, by the wall clock), even when the store keeps it open: a restored snapshot's connections
     * are older than that.
     */
    @Test
    void aKeptAliveConnectionIdleBeyondItsLifetimeIsNotReused() throws Exception {
        getItem();
        Thread.sleep(KEEP_ALIVE_LIFETIME.plusMillis(500).toMillis());
        getItem();

        assertEquals(2, requests());
        assertEquals(2, connections(), "the second call on a new connection");
        assertEquals(2, attempts());
    }

    /** The transport never re-sends a POST: every request the store saw is an attempt of the SDK's, at most 3. */
    @Test
    void aLostAnswerIsRetriedByTheSdkAloneWithItsThreeAttempts() {
        ScriptedStore.script = connection -> connection.readRequest();

        assertThrows(SdkClientException.class, this::getItem);

        assertEquals(3, attempts());
        assertEquals(3, requests(), "one request per attempt, none re-sent by the transport");
        assertEquals(3, connections());
    }

    @Test
    void aStalledAttemptIsAbandonedAtTheAttemptTimeoutAndItsConnectionClosed() throws Exception {
        AtomicInteger closedByClient = new AtomicInteger();
        ScriptedStore.script = connection -> {
            connection.readRequest();
            if (connection.closedByClientWithin(Duration.ofSeconds(30))) {
                closedByClient.incrementAndGet();
            }
        };

        // The url-connection client's own read timeout is 30 s: only the SDK's timeouts (1 s an attempt, 3 s a call) end these.
        assertThrows(SdkClientException.class, this::getItem);

        assertTrue(attempts() >= 2, "the SDK retried the stalled attempt: " + attempts());
        assertEquals(attempts(), requests(), "one request per attempt");
        assertEquals(requests(), connections(), "each attempt on a new connection");
        awaitClosedByClient(closedByClient, requests());
        assertFalse(Thread.currentThread().isInterrupted(), "the SDK cleared its interrupt");
    }

    private void getItem() {
        dynamo.getItem(b -> b.tableName("oncepay-test").key(Map.of("pk", AttributeValue.fromS("p"))));
    }

    private int requests() {
        return ScriptedStore.server.requests() - requestsBefore;
    }

    private int connections() {
        return ScriptedStore.server.connections() - connectionsBefore;
    }

    private long attempts() {
        return counter.attempts() - attemptsBefore;
    }

    private static void awaitClosedByClient(AtomicInteger closedByClient, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (closedByClient.get() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, closedByClient.get(), "every abandoned attempt's connection closed by the client");
    }

    private static void answerEveryRequest(ScriptedHttpServer.Connection connection) throws IOException {
        while (true) {
            connection.readRequest();
            answerEmpty(connection);
        }
    }

    private static void answerEmpty(ScriptedHttpServer.Connection connection) throws IOException {
        CRC32 crc = new CRC32();
        crc.update(EMPTY.getBytes(StandardCharsets.UTF_8));
        connection.answer(EMPTY, "x-amz-crc32: " + crc.getValue() + "\r\n");
    }

    /** A store scripted at the socket in place of DynamoDB, for this class's application only. */
    public static final class ScriptedStore implements QuarkusTestResourceLifecycleManager {
        static volatile ScriptedHttpServer.Script script = StoreTransportTest::answerEveryRequest;
        static ScriptedHttpServer server;
        private static final List<Socket> open = new CopyOnWriteArrayList<>();

        static void closeConnections() throws IOException {
            for (Socket socket : open) {
                socket.close();
            }
            open.clear();
        }

        @Override
        public Map<String, String> start() {
            server = new ScriptedHttpServer(connection -> {
                open.add(connection.socket());
                script.serve(connection);
            });
            return Map.of(
                    "quarkus.dynamodb.endpoint-override", "http://127.0.0.1:" + server.port(),
                    "quarkus.dynamodb.aws.region", "us-east-1",
                    "quarkus.dynamodb.aws.credentials.type", "static",
                    "quarkus.dynamodb.aws.credentials.static-provider.access-key-id", "test",
                    "quarkus.dynamodb.aws.credentials.static-provider.secret-access-key", "test");
        }

        @Override
        public void stop() {
            try {
                server.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
