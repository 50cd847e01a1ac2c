package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.oncepay.contract.Metrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.provider.transport.ProviderHttp;
import dev.oncepay.contract.Table;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.webhook.WebhookTestProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The webhook function's priming: a badly signed delivery, refused before the store is touched, then
 * the store path of a good one (its payment's read, the conditional writes) without writing.
 * It builds no provider HTTP client, at startup or priming: the webhook function calls no provider.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookPrimingTest {
    @Inject
    SnapStartHooks hooks;
    @Inject
    Priming priming;
    @Inject
    DynamoRequestCounter dynamoRequests;
    @Inject
    RecordingMetrics metrics;
    @Inject
    DynamoDbClient dynamo;
    @Inject
    OncepayConfig config;
    @Inject
    ProviderHttp providerHttp;

    @Test
    void aBadlySignedDeliveryIsRefusedAndTheStorePathRunsWithoutWriting() throws Exception {
        dynamoRequests.reset();
        Object before = SimStats.read();
        int answers = metrics.counted(Metrics.ANSWERS);

        assertEquals(List.of("POST /webhooks/sim 401", "payment read", "writes refused UpdateItem, PutItem"),
                priming.run("test"));
        assertEquals(Map.of("GetItem", 1L, "UpdateItem", 1L, "PutItem", 1L), dynamoRequests.snapshot());
        for (String key : List.of(ChargePrimer.NEVER_ISSUED_ID, ChargePrimer.NEVER_ISSUED_ID + "#priming")) {
            assertFalse(dynamo.getItem(b -> b.tableName(config.table()).key(Map.of(Table.PK, AttributeValue.fromS(key)))
                    .consistentRead(true)).hasItem(), key + " was written");
        }
        dynamoRequests.reset();
        hooks.beforeCheckpoint(null);
        assertEquals(Map.of("GetItem", 1L, "UpdateItem", 1L, "PutItem", 1L), dynamoRequests.snapshot(),
                "the snapshot's priming runs the same path, once: a provider's deliveries are not repeated in rounds");
        assertEquals(before, SimStats.read());
        assertEquals(answers, metrics.counted(Metrics.ANSWERS));
        assertFalse(providerHttp.clientBuilt(), "the webhook function never calls a provider: no client built for it");
    }
}
