package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.contract.Metrics;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.reconcile.ReconcileProfile;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reconcile function's priming: the backlog's queries, read-only, no gauges, no sweep. */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ReconcilePrimingTest {
    @Inject
    Priming priming;
    @Inject
    PaymentRepository payments;
    @Inject
    DynamoRequestCounter dynamoRequests;
    @Inject
    RecordingMetrics metrics;

    @Test
    void theBacklogQueriesRunAndNothingIsWrittenOrAsked() throws Exception {
        dynamoRequests.reset();
        Object before = SimStats.read();
        int gauges = metrics.samples(Metrics.UNKNOWN_BACKLOG).size() + metrics.samples(Metrics.NEEDS_REVIEW_BACKLOG).size();

        List<String> done = priming.run("test");

        int queries = 3 * payments.sweepShards();
        assertEquals("backlog queries " + queries, done.get(done.size() - 1));
        assertEquals(Map.of("Query", (long) queries), dynamoRequests.snapshot());
        assertEquals(before, SimStats.read());
        assertEquals(gauges, metrics.samples(Metrics.UNKNOWN_BACKLOG).size() + metrics.samples(Metrics.NEEDS_REVIEW_BACKLOG).size());
    }
}
