package dev.oncepay.testing;

import dev.oncepay.testkit.Dynalite;
import dev.oncepay.testkit.HeldAnswer;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaultProxy;
import dev.oncepay.testkit.StoreFaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The store fault layer through the real AWS SDK (url-connection client, as the functions use)
 * against real dynalite: faithful forwarding, each fault as the SDK sees it, and what each fault
 * leaves in the store, checked with a client that bypasses the proxy.
 */
class StoreFaultProxyTest {

    private static final String TABLE = "proxy-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Dynalite dynalite;
    private static StoreFaultProxy proxy;
    private static DynamoDbClient direct;
    /** SDK retries off, so each call meets exactly one injected fault. */
    private static DynamoDbClient viaProxy;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() {
        dynalite = Dynalite.start();
        proxy = StoreFaultProxy.start(dynalite.endpoint(), 0, 42);
        direct = client(dynalite.endpoint(), Duration.ofSeconds(5));
        viaProxy = client(proxy.endpoint(), Duration.ofSeconds(2));
        direct.createTable(b -> b.tableName(TABLE)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build()));
        direct.waiter().waitUntilTableExists(b -> b.tableName(TABLE));
    }

    @AfterAll
    static void stop() {
        viaProxy.close();
        direct.close();
        proxy.close();
        dynalite.close();
    }

    @AfterEach
    void healthyAgain() {
        proxy.reset();
    }

    private static DynamoDbClient client(String endpoint, Duration attemptTimeout) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .retryStrategy(RetryMode.STANDARD)
                        .retryStrategy(b -> b.maxAttempts(1))
                        .apiCallAttemptTimeout(attemptTimeout)
                        .build())
                .build();
    }

    @Test
    void forwardsRequestsAndAnswersFaithfully() {
        String key = newKey();
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "forwarded ✓")));

        Map<String, AttributeValue> stored = direct.getItem(b -> b.tableName(TABLE).key(keyOf(key)).consistentRead(true)).item();
        assertEquals("forwarded ✓", stored.get("v").s());
        assertEquals("forwarded ✓", viaProxy.getItem(b -> b.tableName(TABLE).key(keyOf(key)).consistentRead(true)).item().get("v").s());
        // A store error is relayed as the store's own (status, type, CRC32 that the SDK checks).
        DynamoDbException missingTable = assertThrows(DynamoDbException.class,
                () -> viaProxy.getItem(b -> b.tableName("no-such-table").key(keyOf(key))));
        assertEquals(400, missingTable.statusCode());
        assertEquals("ResourceNotFoundException", missingTable.awsErrorDetails().errorCode());
    }

    @Test
    void forwardingAddsLittleLatency() {
        String key = newKey();
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "x")));
        long directMedian = medianGetMicros(direct, key);
        long proxiedMedian = medianGetMicros(viaProxy, key);
        System.out.printf("GetItem median: direct %d us, through the proxy %d us%n", directMedian, proxiedMedian);
        // Loose: the machine is shared; the point is "not tens of milliseconds per request".
        assertTrue(proxiedMedian - directMedian < 20_000, "proxy overhead " + (proxiedMedian - directMedian) + " us");
    }

    private static long medianGetMicros(DynamoDbClient client, String key) {
        long[] micros = new long[300];
        for (int i = 0; i < micros.length; i++) {
            long start = System.nanoTime();
            client.getItem(b -> b.tableName(TABLE).key(keyOf(key)).consistentRead(true));
            micros[i] = (System.nanoTime() - start) / 1_000;
        }
        java.util.Arrays.sort(micros);
        return micros[micros.length / 2];
    }

    @Test
    void throttleIsDynamoDbsOwnErrorAndNothingIsWritten() {
        String key = newKey();
        proxy.failNext("PutItem", StoreFault.THROTTLE, 1);

        ProvisionedThroughputExceededException e = assertThrows(ProvisionedThroughputExceededException.class,
                () -> viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "x"))));

        assertEquals(400, e.statusCode());
        assertTrue(e.isThrottlingException());
        assertFalse(storedDirectly(key));
        assertEquals(1, proxy.injected(StoreFault.THROTTLE));
        // Only the next one: the one after goes through.
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "x")));
        assertTrue(storedDirectly(key));
    }

    @Test
    void serverErrorIsA500AndNothingIsWritten() {
        String key = newKey();
        proxy.failNext("UpdateItem", StoreFault.SERVER_ERROR, 1);

        DynamoDbException e = assertThrows(DynamoDbException.class, () -> viaProxy.updateItem(b -> b.tableName(TABLE)
                .key(keyOf(key)).updateExpression("SET v = :v").expressionAttributeValues(Map.of(":v", AttributeValue.fromS("x")))));

        assertEquals(500, e.statusCode());
        assertEquals("InternalServerError", e.awsErrorDetails().errorCode());
        assertFalse(storedDirectly(key));
    }

    @Test
    void lostAnswerCommitsTheWriteButTheCallerSeesA500() {
        String key = newKey();
        proxy.failNext("PutItem", StoreFault.LOST_ANSWER, 1);

        DynamoDbException e = assertThrows(DynamoDbException.class,
                () -> viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "committed"))));

        assertEquals(500, e.statusCode());
        assertTrue(storedDirectly(key), "the write committed although its answer was lost");
        assertEquals(1, proxy.injected(StoreFault.LOST_ANSWER));
    }

    @Test
    void scriptedFaultsCanBeAimedAtItemsByBodyAndHeldOpen() throws Exception {
        String other = newKey();
        String target = "target-" + UUID.randomUUID();
        proxy.failNext("PutItem", "target-", StoreFault.THROTTLE, 1);

        viaProxy.putItem(b -> b.tableName(TABLE).item(item(other, "x"))); // does not match: passes
        assertThrows(ProvisionedThroughputExceededException.class,
                () -> viaProxy.putItem(b -> b.tableName(TABLE).item(item(target, "x"))));
        assertTrue(storedDirectly(other));
        assertFalse(storedDirectly(target));

        HeldAnswer held = proxy.holdNextLostAnswer("DeleteItem", target);
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(target, "x")));
        try (DynamoDbClient patient = client(proxy.endpoint(), Duration.ofSeconds(30))) {
            CompletableFuture<Throwable> deleting = CompletableFuture.supplyAsync(() -> {
                try {
                    patient.deleteItem(b -> b.tableName(TABLE).key(keyOf(target)));
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            });
            assertTrue(held.awaitCommitted(Duration.ofSeconds(5)));
            assertFalse(storedDirectly(target), "committed while the caller still waits");
            assertFalse(deleting.isDone());
            held.letGo();
            Throwable outcome = deleting.get(10, TimeUnit.SECONDS);
            assertEquals(500, assertInstanceOf(DynamoDbException.class, outcome).statusCode());
        }
    }

    @Test
    void aFaultCanBeAimedAtTheNthMatchingRequestAndAConditionCanFailWithoutReachingTheStore() {
        String target = "nth-" + UUID.randomUUID();
        proxy.failAfter("PutItem", "nth-", 2, StoreFault.CONDITION_FAILED, 1);

        viaProxy.putItem(b -> b.tableName(TABLE).item(item(newKey(), "x"))); // does not match: not counted
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(target + "-1", "x")));
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(target + "-2", "x")));
        assertThrows(ConditionalCheckFailedException.class,
                () -> viaProxy.putItem(b -> b.tableName(TABLE).item(item(target + "-3", "x"))));
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(target + "-4", "x")));

        assertTrue(storedDirectly(target + "-1") && storedDirectly(target + "-2") && storedDirectly(target + "-4"));
        assertFalse(storedDirectly(target + "-3"), "the failed condition never reached the store");
        assertEquals(1, proxy.injected(StoreFault.CONDITION_FAILED));
    }

    @Test
    void stallOutlastsTheAttemptTimeoutAndTheWriteLandsLater() throws InterruptedException {
        String key = newKey();
        proxy.set(StoreFaults.none().withStallMs(4_000));
        proxy.failNext("PutItem", StoreFault.STALL, 1);
        Instant start = Instant.now();

        assertThrows(ApiCallAttemptTimeoutException.class,
                () -> viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "late"))));

        Duration waited = Duration.between(start, Instant.now());
        assertTrue(waited.compareTo(Duration.ofMillis(3_900)) < 0, "gave up after the attempt timeout, not the stall: " + waited);
        assertFalse(storedDirectly(key), "not yet forwarded");
        Instant deadline = Instant.now().plusSeconds(8);
        while (!storedDirectly(key) && Instant.now().isBefore(deadline)) {
            Thread.sleep(50); // polling for the stalled write, bounded
        }
        assertTrue(storedDirectly(key), "forwarded after the stall");
    }

    @Test
    void outageFailsEveryDataRequestButNotTableAdministration() {
        String key = newKey();
        proxy.set(StoreFaults.none().withOutage(true));

        assertThrows(SdkClientException.class, () -> viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "x"))));
        assertThrows(SdkClientException.class, () -> viaProxy.getItem(b -> b.tableName(TABLE).key(keyOf(key))));
        assertEquals(TABLE, viaProxy.describeTable(b -> b.tableName(TABLE)).table().tableName());
        assertFalse(storedDirectly(key));

        proxy.set(proxy.faults().withOutage(false));
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "x")));
        assertTrue(storedDirectly(key));
    }

    @Test
    void ratesApplyToDataRequestsAndTheSeedRepeatsTheDraws() {
        proxy.set(StoreFaults.none().withThrottleRate(1.0));
        assertThrows(ProvisionedThroughputExceededException.class, () -> viaProxy.getItem(b -> b.tableName(TABLE).key(keyOf("any"))));
        assertEquals(TABLE, viaProxy.describeTable(b -> b.tableName(TABLE)).table().tableName());

        proxy.reset();
        List<Boolean> first = throttledOutcomes(0.5, 20);
        proxy.reset();
        List<Boolean> second = throttledOutcomes(0.5, 20);
        assertEquals(first, second);
        assertTrue(first.contains(true) && first.contains(false), "a 0.5 rate throttles some of 20: " + first);
    }

    @Test
    void latencyDelaysDataRequests() {
        proxy.set(StoreFaults.none().withLatencyMs(300));
        Instant start = Instant.now();
        viaProxy.getItem(b -> b.tableName(TABLE).key(keyOf("any")));
        assertTrue(Duration.between(start, Instant.now()).toMillis() >= 300);
    }

    @Test
    void httpControlReadsMergesValidatesAndResets() throws Exception {
        HttpResponse<String> merged = post("/_store/faults", "{\"throttleRate\":0.25,\"stallMs\":9000}");
        assertEquals(200, merged.statusCode());
        JsonNode settings = JSON.readTree(merged.body());
        assertEquals(0.25, settings.get("throttleRate").doubleValue());
        assertEquals(9000, settings.get("stallMs").longValue());
        assertEquals(0.0, settings.get("serverErrorRate").doubleValue());
        assertFalse(settings.get("outage").booleanValue());
        assertEquals(new StoreFaults(0, 0.25, 0.0, 0.0, 9000, 0.0, false), proxy.faults());

        for (String bad : List.of("{\"throttleRate\":1.5}", "{\"stallMs\":-1}", "{\"outage\":\"yes\"}",
                "{\"trottleRate\":0.1}", "[]", "not json", "{\"latencyMs\":1.5}")) {
            HttpResponse<String> rejected = post("/_store/faults", bad);
            assertEquals(400, rejected.statusCode(), bad);
            assertEquals(new StoreFaults(0, 0.25, 0.0, 0.0, 9000, 0.0, false), proxy.faults(), "unchanged after " + bad);
        }

        HttpResponse<String> read = http.send(HttpRequest.newBuilder(URI.create(proxy.endpoint() + "/_store/faults")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, read.statusCode());
        assertEquals(0.25, JSON.readTree(read.body()).get("throttleRate").doubleValue());

        assertEquals(200, post("/_store/reset", "").statusCode());
        assertEquals(StoreFaults.none(), proxy.faults());
    }

    @Test
    void statsCountEveryRequestByCallerAndOperationFaultedOnesIncludedUntilReset() throws Exception {
        String key = newKey();
        viaProxy.putItem(b -> b.tableName(TABLE).item(item(key, "counted")));
        viaProxy.getItem(b -> b.tableName(TABLE).key(keyOf(key)));
        proxy.failNext("GetItem", StoreFault.THROTTLE, 1);
        assertThrows(ProvisionedThroughputExceededException.class,
                () -> viaProxy.getItem(b -> b.tableName(TABLE).key(keyOf(key))));
        try (DynamoDbClient other = DynamoDbClient.builder().endpointOverride(URI.create(proxy.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("charge", "x")))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            other.getItem(b -> b.tableName(TABLE).key(keyOf(key)));
        }

        HttpResponse<String> stats = http.send(HttpRequest.newBuilder(URI.create(proxy.endpoint() + "/_store/stats"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, stats.statusCode());
        ObjectNode counted = (ObjectNode) JSON.readTree(stats.body());
        JsonNode timing = counted.remove("timingByCaller");
        assertEquals(JSON.readTree("""
                {"requests": {"GetItem": 3, "PutItem": 1},
                 "byCaller": {"charge": {"GetItem": 1}, "test": {"GetItem": 2, "PutItem": 1}}}"""), counted);
        // Timed: the healthy requests only (the throttled one never reached the store).
        assertEquals(1, timing.path("charge").path("requests").asInt(), timing.toString());
        assertEquals(2, timing.path("test").path("requests").asInt(), timing.toString());
        assertTrue(timing.path("test").path("handledMs").asDouble() >= timing.path("test").path("upstreamMs").asDouble()
                && timing.path("test").path("upstreamMs").asDouble() > 0, timing.toString());
        assertEquals(405, post("/_store/stats", "").statusCode());

        assertEquals(200, post("/_store/reset", "").statusCode());
        assertEquals(JSON.readTree("{\"requests\": {}, \"byCaller\": {}, \"timingByCaller\": {}}"), proxy.stats());
    }

    @Test
    void aStoreThatReportsItsOwnTimeHasItAddedUpAndTheHeaderStaysHere() throws Exception {
        try (ScriptedHttpServer store = new ScriptedHttpServer(connection -> {
                    for (int i = 0; i < 2; i++) {
                        connection.readRequest();
                        connection.answer("{}", StoreFaultProxy.HANDLED_MICROS_HEADER + ": 1500\r\n");
                    }
                });
                StoreFaultProxy reporting = StoreFaultProxy.start("http://127.0.0.1:" + store.port(), 0)) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(reporting.endpoint() + "/"))
                        .header("X-Amz-Target", "DynamoDB_20120810.PutItem")
                        .header("Authorization", "AWS4-HMAC-SHA256 Credential=charge/20261201/us-east-1/dynamodb/aws4_request")
                        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, answer.statusCode());
                assertEquals("{}", answer.body());
                assertFalse(answer.headers().firstValue(StoreFaultProxy.HANDLED_MICROS_HEADER).isPresent(), answer.headers().toString());
            }
            JsonNode timing = reporting.stats().path("timingByCaller").path("charge");
            assertEquals(2, timing.path("requests").asInt(), timing.toString());
            assertEquals(2, timing.path("upstreamOwnRequests").asInt(), timing.toString());
            assertEquals(3.0, timing.path("upstreamOwnMs").asDouble(), 1e-9, timing.toString());
        }
        // dynalite as the tests start it reports nothing: no such figure
        viaProxy.getItem(b -> b.tableName(TABLE).key(keyOf(newKey())));
        assertFalse(proxy.stats().path("timingByCaller").path("test").has("upstreamOwnMs"), proxy.stats().toString());
    }

    private List<Boolean> throttledOutcomes(double rate, int requests) {
        proxy.set(StoreFaults.none().withThrottleRate(rate));
        List<Boolean> outcomes = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            try {
                viaProxy.getItem(b -> b.tableName(TABLE).key(keyOf("any")));
                outcomes.add(false);
            } catch (ProvisionedThroughputExceededException e) {
                outcomes.add(true);
            }
        }
        return outcomes;
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.endpoint() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static boolean storedDirectly(String key) {
        return direct.getItem(b -> b.tableName(TABLE).key(keyOf(key)).consistentRead(true)).hasItem();
    }

    private static String newKey() {
        return "k-" + UUID.randomUUID();
    }

    private static Map<String, AttributeValue> keyOf(String key) {
        return Map.of("pk", AttributeValue.fromS(key));
    }

    private static Map<String, AttributeValue> item(String key, String value) {
        return Map.of("pk", AttributeValue.fromS(key), "v", AttributeValue.fromS(value));
    }
}
