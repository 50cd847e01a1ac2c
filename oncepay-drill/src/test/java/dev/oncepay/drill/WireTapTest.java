package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.sim.Faults;
import dev.oncepay.contract.Table;
import dev.oncepay.contract.TableSchema;
import dev.oncepay.testkit.Dynalite;
import dev.oncepay.sim.PspSimulator;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/** The tap between oncepay and the simulator (or the store): it notes every charge request, counts lookups and DynamoDB requests, and changes no answer. */
class WireTapTest {
    private static final String BODY =
            "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"pay_1\",\"description\":\"order_9\"}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private PspSimulator sim;
    private WireTap tap;

    @BeforeEach
    void start() throws IOException {
        sim = PspSimulator.start(0);
        tap = WireTap.start(sim.baseUrl());
    }

    @AfterEach
    void stop() {
        tap.close();
        sim.close();
    }

    private HttpResponse<String> charge(String key) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(tap.url() + "/v1/charges")).timeout(Duration.ofSeconds(5))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aChargeGoesThroughUnchangedAndIsNotedWithItsPaymentAndOrder() throws Exception {
        long before = System.nanoTime();
        HttpResponse<String> first = charge("oncepay-pay_1");
        HttpResponse<String> replay = charge("oncepay-pay_1");

        assertEquals(200, first.statusCode(), first.body());
        assertEquals(first.body(), replay.body());
        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
        assertEquals(1, sim.ledger().size());
        List<WireTap.ChargeRequest> noted = tap.chargeRequests();
        assertEquals(2, noted.size());
        assertEquals("pay_1", noted.get(0).paymentId());
        assertEquals("order_9", noted.get(0).order());
        assertEquals("oncepay-pay_1", noted.get(0).idempotencyKey());
        assertTrue(noted.get(0).atNanos() >= before);
        assertTrue(noted.get(0).executed(), noted.get(0).answer().get());
        assertFalse(noted.get(1).executed(), "a replay: " + noted.get(1).answer().get());

        HttpResponse<String> lookup = http.send(HttpRequest.newBuilder(URI.create(tap.url() + "/v1/charges?reference=pay_1"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, lookup.statusCode());
        assertEquals(2, tap.chargeRequests().size(), "lookups are forwarded, not noted as charges");
        assertEquals(1, tap.lookupRequests());
    }

    @Test
    void aStripePaymentIntentIsNotedFromItsFormWithItsPaymentAndOrder() throws Exception {
        String form = "amount=4200&currency=eur&payment_method=pm_card_authenticationRequired&confirm=true"
                + "&metadata%5Boncepay_payment_id%5D=pay_2&metadata%5Boncepay_reference%5D=order%2010";
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(tap.url() + "/v1/payment_intents"))
                .timeout(Duration.ofSeconds(5)).header("Idempotency-Key", "oncepay-pay_2")
                .header("Authorization", "Bearer sk_test_tap").header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());

        assertEquals(200, created.statusCode(), created.body());
        List<WireTap.ChargeRequest> noted = tap.chargeRequests();
        assertEquals(1, noted.size());
        assertEquals("pay_2", noted.get(0).paymentId());
        assertEquals("order 10", noted.get(0).order());
        assertEquals("200 requires_action", noted.get(0).answer().get());
        String id = sim.stripe().paymentIntentId("pay_2").orElseThrow();
        HttpResponse<String> retrieved = http.send(HttpRequest.newBuilder(URI.create(tap.url() + "/v1/payment_intents/" + id))
                .header("Authorization", "Bearer sk_test_tap").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, retrieved.statusCode(), retrieved.body());
        assertEquals(1, tap.chargeRequests().size(), "a retrieve is a lookup");
        assertEquals(1, tap.lookupRequests());
    }

    @Test
    void inFrontOfTheStoreItCountsDynamoDbRequestsByOperation() throws Exception {
        for (String target : List.of("DynamoDB_20120810.PutItem", "DynamoDB_20120810.GetItem", "DynamoDB_20120810.PutItem")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(tap.url() + "/"))
                    .header("X-Amz-Target", target).header("Content-Type", "application/x-amz-json-1.0")
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, r.statusCode(), "forwarded: the simulator has no such endpoint");
        }
        assertEquals(java.util.Map.of("GetItem", 1, "PutItem", 2), tap.dynamoRequests());
        assertEquals(java.util.Map.of("GetItem", 0, "PutItem", 1),
                WireTap.since(java.util.Map.of("GetItem", 1, "PutItem", 1), tap.dynamoRequests()));
        assertEquals(0, tap.chargeRequests().size());
    }

    @Test
    void inFrontOfTheStoreItCountsWritesWhoseConditionFailed() throws Exception {
        try (Dynalite dynalite = Dynalite.start(); WireTap store = WireTap.start(dynalite.endpoint());
                DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(URI.create(store.url()))
                        .region(Region.US_EAST_1).httpClient(UrlConnectionHttpClient.create())
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("t", "t")))
                        .build()) {
            dynamo.createTable(TableSchema.createTableRequest("tap-table"));
            PutItemRequest claim = PutItemRequest.builder().tableName("tap-table")
                    .item(java.util.Map.of(Table.PK, AttributeValue.fromS("key#1")))
                    .conditionExpression("attribute_not_exists(" + Table.PK + ")").build();
            dynamo.putItem(claim);
            assertThrows(ConditionalCheckFailedException.class, () -> dynamo.putItem(claim));
            assertThrows(ConditionalCheckFailedException.class, () -> dynamo.putItem(claim));
            dynamo.getItem(b -> b.tableName("tap-table").key(java.util.Map.of(Table.PK, AttributeValue.fromS("nope"))));

            assertEquals(java.util.Map.of("PutItem", 2), store.conditionsFailed());
            assertEquals(3, store.dynamoRequests().get("PutItem"));
        }
    }

    @Test
    void aConnectionTheProviderDropsIsDroppedAndTheRequestStillNoted() throws Exception {
        sim.setFaults(Faults.none().withResetRate(1.0));
        assertThrows(IOException.class, () -> charge("oncepay-pay_1"));
        assertEquals(0, sim.ledger().size());
        assertEquals(1, tap.chargeRequests().size());
        assertEquals("no answer", tap.chargeRequests().get(0).answer().get());
    }
}
