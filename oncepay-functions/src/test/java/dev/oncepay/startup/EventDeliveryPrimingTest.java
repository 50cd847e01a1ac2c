package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.delivery.EventDeliveryProfile;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.testing.EventQueueMapping;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Event delivery's priming: a message read, two lookups, a signature; nothing written, sent or called. */
@QuarkusTest
@TestProfile(EventDeliveryProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class EventDeliveryPrimingTest {
    @Inject
    Priming priming;
    @Inject
    DynamoRequestCounter dynamoRequests;

    @Test
    void theDeliveryPathIsReadAndNothingIsWrittenSentOrCalled() {
        EventQueueMapping.purge();
        TestEnvironment.merchant().reset();
        dynamoRequests.reset();

        List<String> done = priming.run("test");

        assertEquals(List.of("message read", "endpoint health read", "delivery record looked up", "body signed"), done);
        assertEquals(Map.of("GetItem", 2L), dynamoRequests.snapshot());
        assertEquals(0, EventQueueMapping.depth());
        assertEquals(0, TestEnvironment.merchant().counts().received());
    }
}
