package dev.oncepay.startup;

import dev.oncepay.provider.policy.Jitter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Metrics;
import dev.oncepay.provider.policy.FleetBreakers;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import dev.oncepay.contract.Table;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The charge function's SnapStart hooks, called as the Lambda runtime calls them (a JVM without
 * CRaC cannot take a checkpoint): priming runs the real path and leaves no trace that looks like
 * traffic, and a restore refreshes what the snapshot froze. Counts, not timings.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ChargeSnapStartHooksTest {
    @Inject
    SnapStartHooks hooks;
    @Inject
    DynamoRequestCounter dynamoRequests;
    @Inject
    RecordingMetrics metrics;
    @Inject
    FleetBreakers breakers;
    @Inject
    Priming priming;
    @Inject
    DynamoDbClient dynamo;
    @ConfigProperty(name = "oncepay.table")
    String table;

    @BeforeEach
    void cleanSlate() {
        TestEnvironment.simulator().reset();
        breakers.resetAll();
        dynamoRequests.reset();
    }

    @Test
    void theHooksAreRegisteredAtStartup() {
        assertTrue(hooks.registered());
    }

    @Test
    void primingRunsTheRequestPathReadingOnlyAndCallingNoProvider() throws Exception {
        Object before = SimStats.read();
        int answersBefore = metrics.counted(Metrics.ANSWERS);
        int samplesBefore = metrics.samples(Metrics.PROVIDER_LATENCY).size();

        hooks.beforeCheckpoint(null);

        // Each of the two rounds (oncepay.priming.rounds in tests): one consistent GetItem for the payment
        // that cannot exist, one for the never-credited wallet, and the write path once each, refused by
        // its own conditions; the first round also reads the default account's breaker shard and
        // bulkhead slot shard, and those of each adapter's priming account (sim, stripe: the loopback
        // charges), which the second finds cached.
        assertEquals(Map.of("GetItem", 2L * 2 + 3 * 2, "UpdateItem", 2L, "PutItem", 2L), dynamoRequests.snapshot());
        for (String key : List.of(ChargePrimer.NEVER_ISSUED_ID, ChargePrimer.NEVER_ISSUED_ID + "#priming")) {
            assertFalse(dynamo.getItem(b -> b.tableName(table).key(Map.of(Table.PK, AttributeValue.fromS(key)))
                    .consistentRead(true)).hasItem(), key + " was written");
        }
        assertEquals(before, SimStats.read(), "no provider request");
        assertEquals(answersBefore, metrics.counted(Metrics.ANSWERS), "no Answers point");
        assertEquals(samplesBefore, metrics.samples(Metrics.PROVIDER_LATENCY).size(), "no ProviderLatency point");
    }

    @Test
    void primingAnswersAsTheHandlerWouldWithoutWriting() {
        List<String> done = priming.run("test");

        assertEquals("GET /payments/{id} 404", done.get(0));
        assertEquals("POST /payments 400", done.get(1));
        assertTrue(done.get(2).matches("GET /admin/payments 40[13]"), done.get(2));
        assertEquals("GET /wallets/{walletId} 404", done.get(3));
        // Each adapter charged the loopback provider and read its answer: the whole provider path ran.
        assertTrue(done.contains("provider calls [sim SUCCEEDED, stripe SUCCEEDED]"), done.toString());
        assertTrue(done.contains("writes refused UpdateItem, PutItem"), done.toString());
        assertEquals("breaker read", done.get(done.size() - 1));
    }

    @Test
    void afterARestoreTheBreakerItemIsReadAgain() {
        hooks.beforeCheckpoint(null);
        dynamoRequests.reset();
        hooks.beforeCheckpoint(null); // the breakers' copies are fresh: each round reads only the payment and the wallet
        assertEquals(2L * 2, dynamoRequests.snapshot().get("GetItem"));

        hooks.afterRestore(null);
        dynamoRequests.reset();
        hooks.beforeCheckpoint(null);

        // Each round's payment and wallet, and the three accounts' breaker shards and bulkhead slot
        // shards again in the first (the default account's, each priming account's).
        assertEquals(2L * 2 + 3 * 2, dynamoRequests.snapshot().get("GetItem"), "the breaker items are read again");
    }

    @Test
    void afterARestoreTheJitterDiffersFromWhatTheSnapshotWouldDraw() throws Exception {
        // What every sandbox restored from one snapshot would hold: a copy of the generator.
        Random inSnapshot = copy(Jitter.current());

        hooks.afterRestore(null);

        long[] restored = LongStream.range(0, 8).map(i -> Jitter.nextLong(1L << 40)).toArray();
        long[] replayed = LongStream.range(0, 8).map(i -> inSnapshot.nextLong(1L << 40)).toArray();
        assertFalse(Arrays.equals(replayed, restored), "a restored sandbox must not replay the snapshot's draws");
    }

    private static Random copy(Random random) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(random);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (Random) in.readObject();
        }
    }
}
