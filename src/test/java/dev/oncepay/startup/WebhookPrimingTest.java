package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.config.Metrics;
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

/** The webhook function's priming: a badly signed delivery, refused before the store is touched. */
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

    @Test
    void aBadlySignedDeliveryIsRefusedAndNothingIsReadOrWritten() throws Exception {
        dynamoRequests.reset();
        Object before = SimStats.read();
        int answers = metrics.counted(Metrics.ANSWERS);

        assertEquals(List.of("POST /webhooks/sim 401"), priming.run("test"));
        hooks.beforeCheckpoint(null);

        assertEquals(Map.of(), dynamoRequests.snapshot());
        assertEquals(before, SimStats.read());
        assertEquals(answers, metrics.counted(Metrics.ANSWERS));
    }
}
