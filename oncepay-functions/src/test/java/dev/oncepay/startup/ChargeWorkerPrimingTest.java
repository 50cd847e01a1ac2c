package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.charge.ChargeWorkerProfile;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.testing.EventSourceMapping;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The charge worker's priming: one message read, one lookup, one queue read; nothing written, sent or asked. */
@QuarkusTest
@TestProfile(ChargeWorkerProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ChargeWorkerPrimingTest {
    @Inject
    Priming priming;
    @Inject
    DynamoRequestCounter dynamoRequests;

    @Test
    void theWorkersPathIsReadAndNothingIsWrittenSentOrAsked() throws Exception {
        EventSourceMapping.purgeAll();
        dynamoRequests.reset();
        Object before = SimStats.read();

        List<String> done = priming.run("test");

        assertEquals(List.of("message read", "payment looked up", "queue reached"), done);
        assertEquals(Map.of("GetItem", 1L), dynamoRequests.snapshot());
        assertEquals(0, EventSourceMapping.depth("default"));
        assertEquals(before, SimStats.read());
    }
}
