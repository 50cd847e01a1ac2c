package dev.oncepay.provider.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Metrics;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.contract.Attr;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.store.TableItems;
import dev.oncepay.testkit.HeldAnswer;
import dev.oncepay.testkit.SettableClock;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The fleet protection's store protocol (breaker, retry budget, bulkhead) against real dynalite,
 * each {@link FleetProtection} instance a sandbox of its own (own cache, own earnings) sharing one
 * table: racing writers meet only the conditional writes, as sandboxes of several functions would.
 */
class FleetBreakerTest {
    /** The breaker's minimum calls and its window: four calls at least, the newest twenty, ten seconds back at most. */
    private static final int MIN_CALLS = 4;
    private static final int WINDOW_CALLS = 20;
    private static final Duration WINDOW = Duration.ofSeconds(10);
    private static final Duration OPEN_FOR = Duration.ofSeconds(10);
    private static final Duration SLOW = Duration.ofSeconds(4);
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration CACHE = Duration.ofSeconds(1);
    private static final int SANDBOXES = 8;
    /** The breaker tests spread each breaker over four shards; the bulkhead's keep one unless they test the spread. */
    private static final int SHARDS = 4;
    private static final int MAX_IN_FLIGHT = 3;
    /** Real time (a slot is taken by a timer): short, so the bulkhead tests wait little for it. */
    private static final Duration IN_FLIGHT_AFTER = Duration.ofMillis(100);
    /**
     * An in-flight-after under which a copy that shows slot shards full refuses calls for half a
     * cache period: long for tests of refusals without a request, which run on real time (the
     * clock's offset aside), and shorter than the period the breaker's copies are trusted for.
     */
    private static final Duration TRUSTING_FULL_COPIES_FOR_HALF_A_PERIOD =
            CACHE.dividedBy(2).multipliedBy(Bulkhead.FULL_TRUSTED_FOR_PART_OF_IN_FLIGHT_AFTER);
    private static final Duration SLOT_LEASE = Duration.ofSeconds(9);
    /** The functions' client to the store goes through the fault proxy; this one too, retries off. */
    private static DynamoDbClient viaProxy;

    private SettableClock clock = new TestClock();
    private RecordingMetrics metrics = new RecordingMetrics(new ObjectMapper(), clock);
    private final ExecutorService threads = Executors.newFixedThreadPool(SANDBOXES);
    private final Random random = new Random(7);
    private ProviderAccount account;

    @BeforeAll
    static void store() {
        new TestEnvironment().start();
        viaProxy = clientViaProxy();
    }

    /** A client to the store through the fault proxy, retries off, its requests counted by {@code counters}. */
    private static DynamoDbClient clientViaProxy(DynamoRequestCounter... counters) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create(TestEnvironment.storeProxy().endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD).retryStrategy(b -> b.maxAttempts(1))
                        .apiCallTimeout(Duration.ofSeconds(3)).executionInterceptors(List.of(counters)))
                .build();
    }

    @AfterAll
    static void closeClient() {
        viaProxy.close();
    }

    @BeforeEach
    void freshAccount() {
        account = new ProviderAccount("sim", "fleet-" + UUID.randomUUID().toString().substring(0, 8));
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        TestEnvironment.storeProxy().reset();
    }

    private FleetProtection sandbox(DynamoDbClient client, double retryShare, int retryBurst, Duration inFlightAfter,
            int shards) {
        return sandbox(client, retryShare, retryBurst, inFlightAfter, false, shards);
    }

    private FleetProtection sandbox(DynamoDbClient client, double retryShare, int retryBurst, Duration inFlightAfter,
            boolean firstCallCounted, int shards) {
        // A breaker uses as many shards as its cap gives sixteen slots each: one for the bulkhead's small cap.
        int maxInFlight = shards == 1 ? MAX_IN_FLIGHT : shards * FleetProtection.SLOTS_PER_SHARD;
        FleetProtection.Limits limits = new FleetProtection.Limits(WINDOW_CALLS, MIN_CALLS, 0.5, 1.0, WINDOW, OPEN_FOR,
                SLOW, LEASE, maxInFlight, SLOT_LEASE);
        return new FleetProtection(client, TestEnvironment.TABLE, clock, metrics, new FleetProtection.Settings(
                Map.of(ProviderOperation.CHARGE, limits, ProviderOperation.LOOKUP, limits), CACHE, retryShare,
                retryBurst, inFlightAfter, firstCallCounted, shards), new Random(random.nextLong()));
    }

    private FleetProtection sandbox() {
        return sandbox(TestEnvironment.dynamo(), 0.1, 10, IN_FLIGHT_AFTER, SHARDS);
    }

    /** A sandbox of a one-shard breaker: the bulkhead's and the budget's counts in one item. */
    private FleetProtection oneShardSandbox() {
        return sandbox(TestEnvironment.dynamo(), 0.1, 10, IN_FLIGHT_AFTER, 1);
    }

    /**
     * For a test that counts per second of the clock, before it makes its sandboxes: time moves only
     * when the test advances it, so no step straddles two seconds and no copy ages on its own.
     */
    private void stopTheClock() {
        clock = SettableClock.stoppedAt(Instant.now());
        metrics = new RecordingMetrics(new ObjectMapper(), clock);
    }

    private List<FleetProtection> sandboxes() {
        List<FleetProtection> fleet = new ArrayList<>();
        for (int i = 0; i < SANDBOXES; i++) {
            fleet.add(sandbox());
        }
        return fleet;
    }

    private String pk() {
        return BreakerItem.pk(account, ProviderOperation.CHARGE);
    }

    private BreakerItem state() {
        return TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE, pk()).map(BreakerItem::from)
                .orElse(BreakerItem.ABSENT);
    }

    private Map<String, AttributeValue> shardItem(int k) {
        return TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE, BreakerShard.pk(pk(), k))
                .orElse(Map.of());
    }

    private BreakerShard shard(int k) {
        return BreakerShard.from(shardItem(k), BreakerShard.slots(WINDOW));
    }

    private Map<String, AttributeValue> slotShardItem(int k) {
        return TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE, BreakerShard.slotsPk(pk(), k))
                .orElse(Map.of());
    }

    private BreakerShard slotShard(int k) {
        return slotShard(pk(), k);
    }

    private static BreakerShard slotShard(String breakerPk, int k) {
        return BreakerShard.from(TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE,
                BreakerShard.slotsPk(breakerPk, k)).orElse(Map.of()), BreakerShard.slots(WINDOW));
    }

    /** A first attempt, as {@link ProviderCalls} makes it: it earns a share of a retry, then asks the breaker. */
    private FleetBreaker.Admission firstAttempt(FleetProtection sandbox) {
        sandbox.retryBudget().earn(account, ProviderOperation.CHARGE);
        return sandbox.breaker().admit(account, ProviderOperation.CHARGE);
    }

    private void fail(FleetProtection sandbox) {
        FleetBreaker.Admission call = firstAttempt(sandbox);
        sandbox.breaker().record(account, ProviderOperation.CHARGE, call, "503 from the provider",
                Duration.ofMillis(5));
    }

    private void answer(FleetProtection sandbox, Duration took) {
        FleetBreaker.Admission call = firstAttempt(sandbox);
        sandbox.breaker().record(account, ProviderOperation.CHARGE, call, null, took);
    }

    private void open(FleetProtection sandbox) {
        for (int i = 0; i < MIN_CALLS; i++) {
            fail(sandbox);
        }
        assertEquals(BreakerState.OPEN, state().state());
    }

    /** Runs every task at once (released together by a latch) and returns their results. */
    private <T> List<Optional<T>> atOnce(List<Callable<T>> tasks) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<T>> running = new ArrayList<>();
        for (Callable<T> task : tasks) {
            running.add(threads.submit(() -> {
                go.await();
                return task.call();
            }));
        }
        go.countDown();
        List<Optional<T>> results = new ArrayList<>();
        for (Future<T> f : running) {
            try {
                results.add(Optional.ofNullable(f.get(30, TimeUnit.SECONDS)));
            } catch (java.util.concurrent.ExecutionException refused) {
                if (!(refused.getCause() instanceof CircuitBreakerOpenException)) {
                    throw refused;
                }
                results.add(Optional.empty());
            }
        }
        return results;
    }

    @Test
    void sandboxesRacingToOpenMakeExactlyOneTransitionCopiedToEveryShard() throws Exception {
        List<FleetProtection> fleet = sandboxes();
        List<Callable<Boolean>> failures = new ArrayList<>();
        for (FleetProtection sandbox : fleet) {
            failures.add(() -> {
                fail(sandbox);
                return true;
            });
        }

        atOnce(failures);

        assertEquals(1, metrics.counted(Metrics.BREAKER_OPEN), "exactly one writer opened it");
        BreakerItem opened = state();
        assertEquals(BreakerState.OPEN, opened.state());
        assertEquals(1, opened.openings());
        assertEquals(1, opened.version());
        for (int k = 0; k < SHARDS; k++) {
            assertEquals(BreakerState.OPEN, shard(k).breaker().state(), "shard " + k + " has the transition");
            assertEquals(1, shard(k).breaker().version());
        }
        long counted = 0;
        for (int k = 0; k < SHARDS; k++) {
            counted += shard(k).counted().values().stream().mapToLong(CallCounts::failed).sum();
        }
        assertEquals(SANDBOXES, counted, "every failure was added to a shard once");
        clock.advance(CACHE); // every sandbox reads again: all of them refuse now
        for (FleetProtection sandbox : fleet) {
            assertEquals(Optional.of(ProviderRefusal.BREAKER_OPEN), sandbox.refusal(account, ProviderOperation.CHARGE));
            assertThrows(CircuitBreakerOpenException.class, () -> firstAttempt(sandbox));
        }
    }

    @Test
    void aDeadProviderGetsAtMostTheMinimumCallsPlusOneRequestPerSandboxBeforeTheWholeFleetFailsFast() throws Exception {
        List<FleetProtection> fleet = sandboxes();
        AtomicInteger requests = new AtomicInteger();
        List<Callable<Integer>> callers = new ArrayList<>();
        for (FleetProtection sandbox : fleet) {
            callers.add(() -> {
                int refused = 0;
                for (int call = 0; call < 20; call++) {
                    try {
                        FleetBreaker.Admission admitted = firstAttempt(sandbox);
                        requests.incrementAndGet(); // reaches the dead provider
                        sandbox.breaker().record(account, ProviderOperation.CHARGE, admitted, "connection refused",
                                Duration.ofMillis(1));
                    } catch (CircuitBreakerOpenException open) {
                        refused++;
                    }
                }
                return refused;
            });
        }

        List<Optional<Integer>> refusals = atOnce(callers);

        // Once the window holds the minimum of failures, each sandbox makes at most the call it
        // already had under way (or admitted on a window read just before): that call's failure
        // reads the window, which opens the breaker or learns that another sandbox did.
        assertTrue(requests.get() <= MIN_CALLS + SANDBOXES, () -> requests.get() + " requests reached the provider");
        assertEquals(SANDBOXES * 20, requests.get() + refusals.stream().mapToInt(Optional::orElseThrow).sum());
        assertEquals(1, metrics.counted(Metrics.BREAKER_OPEN));
        System.out.printf("dead provider, %d sandboxes x 20 calls: %d requests reached it (minimum calls %d)%n",
                SANDBOXES, requests.get(), MIN_CALLS);
    }

    @Test
    void failuresBelowTheRatioKeepItClosedAndHealthyCallsWriteOncePerPeriod() {
        FleetProtection sandbox = sandbox();
        for (int i = 0; i < 12; i++) {
            answer(sandbox, Duration.ofMillis(40));
        }
        clock.advance(CACHE); // the successes are added with the next call
        for (int i = 0; i < 5; i++) {
            fail(sandbox);
            answer(sandbox, Duration.ofMillis(40));
        }
        assertEquals(BreakerState.CLOSED, state().state(), "5 of 22 failed: below half");
        assertEquals(0, metrics.counted(Metrics.BREAKER_OPEN));

        int mine = sandbox.shard(ProviderOperation.CHARGE);
        Map<String, AttributeValue> before = shardItem(mine);
        answer(sandbox, Duration.ofMillis(40));
        answer(sandbox, Duration.ofMillis(40));
        assertEquals(before, shardItem(mine), "healthy calls within a period write nothing");
        clock.advance(CACHE);
        answer(sandbox, Duration.ofMillis(40));
        long calls = shard(mine).counted().values().stream().mapToLong(CallCounts::calls).sum();
        assertEquals(12 + 9 + 3, calls, "one write added the period's calls (the last one's still counted in memory)");
    }

    /**
     * A charge asks {@link FleetProtection#refusal} before it calls: once this sandbox's copy of
     * its shard is a period old, that question adds the calls it counted (the period's one
     * request), so they reach the fleet's window in the second after them, not with a later failure.
     */
    @Test
    void theRefusalCheckOfTheNextPeriodAddsTheCallsCountedBeforeIt() {
        stopTheClock();
        FleetProtection sandbox = sandbox();
        int mine = sandbox.shard(ProviderOperation.CHARGE);
        for (int i = 0; i < 3; i++) {
            assertEquals(Optional.empty(), sandbox.refusal(account, ProviderOperation.CHARGE));
            answer(sandbox, Duration.ofMillis(40));
        }
        clock.advance(CACHE);
        long second = clock.instant().getEpochSecond();

        assertEquals(Optional.empty(), sandbox.refusal(account, ProviderOperation.CHARGE));

        assertEquals(new CallCounts(3, 0, 0), shard(mine).in(second), "the three calls, in the refusal check's second");
    }

    @Test
    void failuresAtTheRatioOfTheWindowOpenItAndTheWindowForgetsOlderSeconds() {
        FleetProtection sandbox = sandbox();
        for (int i = 0; i < 30; i++) {
            answer(sandbox, Duration.ofMillis(40));
        }
        clock.advance(WINDOW.plusSeconds(1)); // those successes leave the window
        for (int i = 0; i < 5; i++) {
            answer(sandbox, Duration.ofMillis(40));
        }
        for (int i = 0; i < 4; i++) {
            fail(sandbox);
        }
        assertEquals(BreakerState.CLOSED, state().state(), "4 of the window's 9 calls failed");
        fail(sandbox);
        assertEquals(BreakerState.OPEN, state().state(), "5 of 10: the ratio");
        assertEquals(1, metrics.counted(Metrics.BREAKER_OPEN));
    }

    /**
     * A provider that stops answering: every sandbox's calls hang for the read timeout. The
     * successes each sandbox counted before its calls hung go to the second they happened, so they
     * do not thin out the hung calls' failures in the fleet's newest second, and the breaker opens
     * once that second holds the window's calls.
     */
    @Test
    void successesCountedBeforeCallsHungStayInTheirSecondAndTheHungCallsFailuresOpenIt() {
        stopTheClock();
        List<FleetBreaker.Admission> hung = new ArrayList<>();
        List<FleetProtection> holders = new ArrayList<>();
        long answered = clock.instant().getEpochSecond();
        for (FleetProtection sandbox : sandboxes()) {
            for (int i = 0; i < 4; i++) {
                answer(sandbox, Duration.ofMillis(40)); // counted in memory: the sandbox's copy is fresh
            }
            for (int i = 0; i < 3; i++) {
                hung.add(firstAttempt(sandbox));
                holders.add(sandbox);
            }
        }
        clock.advance(Duration.ofSeconds(5)); // the read timeout
        long failed = clock.instant().getEpochSecond();
        for (int i = 0; i < hung.size(); i++) {
            holders.get(i).breaker().record(account, ProviderOperation.CHARGE, hung.get(i), "read timed out",
                    Duration.ofSeconds(5));
            assertEquals(i + 1 < WINDOW_CALLS ? BreakerState.CLOSED : BreakerState.OPEN, state().state(),
                    (i + 1) + " hung calls failed; the successes before them are their second's");
        }
        assertEquals(List.of(new CallCounts(SANDBOXES * 4, 0, 0), new CallCounts(SANDBOXES * 3, SANDBOXES * 3, 0)),
                List.of(countedIn(answered), countedIn(failed)),
                "the successes in the second they happened, the failures in the second they ended");
    }

    /** What every shard counted in {@code second}. */
    private CallCounts countedIn(long second) {
        CallCounts sum = CallCounts.NONE;
        for (int k = 0; k < SHARDS; k++) {
            sum = sum.plus(shard(k).in(second));
        }
        return sum;
    }

    @Test
    void slowCallsOpenItOnlyWhenAllOfTheWindowIsSlowAndAProbeThatAnswersSlowlyClosesIt() {
        FleetProtection sandbox = sandbox();
        answer(sandbox, Duration.ofMillis(40));
        for (int i = 0; i < 6; i++) {
            answer(sandbox, SLOW.plusMillis(500));
        }
        assertEquals(BreakerState.CLOSED, state().state(), "6 of 7 slow: below the slow-call ratio of 1");

        clock.advance(WINDOW.plusSeconds(1));
        for (int i = 0; i < MIN_CALLS; i++) {
            answer(sandbox, SLOW.plusMillis(500));
        }
        assertEquals(BreakerState.OPEN, state().state(), "every call of the window slow");

        clock.advance(OPEN_FOR);
        FleetBreaker.Admission probe = firstAttempt(sandbox);
        assertTrue(probe.probe());
        sandbox.breaker().record(account, ProviderOperation.CHARGE, probe, null, SLOW.plusMillis(500));
        assertEquals(BreakerState.CLOSED, state().state(), "a slow answer is an answer");
        assertEquals(1, metrics.counted(Metrics.BREAKER_CLOSED));
        assertFalse(firstAttempt(sandbox).probe(), "closed: the next call goes through");
    }

    @Test
    void sandboxesRacingForTheProbeLeaveExactlyOneHolderWhoseAnswerClosesItForEveryone() throws Exception {
        List<FleetProtection> fleet = sandboxes();
        open(fleet.get(0));
        clock.advance(OPEN_FOR);
        List<Callable<FleetBreaker.Admission>> probes = new ArrayList<>();
        for (FleetProtection sandbox : fleet) {
            probes.add(() -> firstAttempt(sandbox));
        }

        List<Optional<FleetBreaker.Admission>> admitted = atOnce(probes);

        List<Integer> holders = new ArrayList<>();
        for (int i = 0; i < admitted.size(); i++) {
            if (admitted.get(i).isPresent()) {
                assertTrue(admitted.get(i).get().probe(), "while open, only the probe is let through");
                holders.add(i);
            }
        }
        assertEquals(1, holders.size(), () -> "probe holders: " + holders);
        assertEquals(1, metrics.counted(Metrics.BREAKER_HALF_OPEN));
        assertEquals(BreakerState.HALF_OPEN, state().state());

        FleetProtection holder = fleet.get(holders.get(0));
        holder.breaker().record(account, ProviderOperation.CHARGE, admitted.get(holders.get(0)).get(), null,
                Duration.ofMillis(30));

        assertEquals(BreakerState.CLOSED, state().state());
        assertNull(state().probeOwner());
        assertEquals(1, metrics.counted(Metrics.BREAKER_CLOSED));
        clock.advance(CACHE);
        for (FleetProtection sandbox : fleet) {
            assertFalse(firstAttempt(sandbox).probe(), "closed for every sandbox");
        }
    }

    @Test
    void aProbeWhoseHolderDiedIsTakenOverAndOnlyTheNewHoldersAnswerCounts() {
        FleetProtection dies = sandbox();
        FleetProtection takesOver = sandbox();
        open(dies);
        clock.advance(OPEN_FOR);
        FleetBreaker.Admission lost = firstAttempt(dies);
        assertTrue(lost.probe());
        assertThrows(CircuitBreakerOpenException.class, () -> firstAttempt(takesOver),
                "a live lease is not taken over");

        clock.advance(LEASE.plusMillis(1));
        FleetBreaker.Admission probe = firstAttempt(takesOver);
        assertTrue(probe.probe(), "the expired lease is taken over");
        dies.breaker().record(account, ProviderOperation.CHARGE, lost, null, Duration.ofMillis(10));
        assertEquals(BreakerState.HALF_OPEN, state().state(), "the dead holder's late answer has no say");
        assertEquals(0, metrics.counted(Metrics.BREAKER_CLOSED));

        takesOver.breaker().record(account, ProviderOperation.CHARGE, probe, "connection refused",
                Duration.ofMillis(10));

        BreakerItem reopened = state();
        assertEquals(BreakerState.OPEN, reopened.state());
        assertEquals(2, reopened.openings());
        assertEquals(1, metrics.counted(Metrics.BREAKER_REOPEN));
        assertEquals(Optional.of(ProviderRefusal.BREAKER_OPEN), takesOver.refusal(account, ProviderOperation.CHARGE));
    }

    @Test
    void aSandboxWhoseCountsLandedJustBeforeAnotherOpenedItLearnsTheOpeningFromItsRefusedCopy() throws Exception {
        FleetProtection opener = oneShardSandbox();
        FleetProtection late = sandbox(viaProxy, 0.1, 10, IN_FLIGHT_AFTER, 1);
        for (int i = 0; i < MIN_CALLS - 1; i++) {
            fail(opener);
        }
        FleetBreaker.Admission admitted = firstAttempt(late);
        HeldAnswer held = TestEnvironment.storeProxy().holdNextAnswer("UpdateItem", BreakerShard.pk(pk(), 0));
        Thread recording = new Thread(() -> late.breaker().record(account, ProviderOperation.CHARGE, admitted,
                "503 from the provider", Duration.ofMillis(5)));
        recording.start();
        assertTrue(held.awaitCommitted(Duration.ofSeconds(10)), "its failure is counted: the window holds the minimum");

        fail(opener); // opens the breaker and copies the opening to the one shard
        assertEquals(BreakerState.OPEN, state().state());
        held.letGo(); // its counts' answer shows the shard as it was before the copy
        recording.join(10_000);

        // Its evaluation found the breaker open, and its copy refused as old: it knows without a read.
        assertThrows(CircuitBreakerOpenException.class, () -> firstAttempt(late));
        assertEquals(1, metrics.counted(Metrics.BREAKER_OPEN));
    }

    @Test
    void aShardThatMissedATransitionIsMendedByItsNextFailureOrProbe() {
        FleetProtection opener = sandbox();
        FleetProtection behind = sandbox();
        behind.useShard((opener.shard(ProviderOperation.CHARGE) + 1) % SHARDS);
        String behindShard = BreakerShard.pk(pk(), behind.shard(ProviderOperation.CHARGE));
        open(opener);
        // The opener died before its copy reached this shard.
        TestEnvironment.dynamo().deleteItem(b -> b.tableName(TestEnvironment.TABLE).key(Attr.key(behindShard)));

        fail(behind);

        assertEquals(BreakerState.OPEN, shard(behind.shard(ProviderOperation.CHARGE)).breaker().state(), "its evaluation copied the opening");
        assertThrows(CircuitBreakerOpenException.class, () -> firstAttempt(behind));

        clock.advance(OPEN_FOR);
        FleetBreaker.Admission probe = firstAttempt(opener);
        opener.breaker().record(account, ProviderOperation.CHARGE, probe, null, Duration.ofMillis(10));
        // The closing's copy did not reach the other shard either.
        TestEnvironment.dynamo().updateItem(b -> b.tableName(TestEnvironment.TABLE).key(Attr.key(behindShard))
                .updateExpression("SET #state = :open, #version = :one")
                .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#version", BreakerItem.VERSION))
                .expressionAttributeValues(Map.of(":open", Attr.s("OPEN"), ":one", Attr.n(1))));
        clock.advance(CACHE);

        FleetBreaker.Admission after = firstAttempt(behind);

        assertFalse(after.probe(), "the primary said closed: a plain call");
        assertEquals(BreakerState.CLOSED, shard(behind.shard(ProviderOperation.CHARGE)).breaker().state(), "the shard's copy mended");
        assertEquals(1, metrics.counted(Metrics.BREAKER_HALF_OPEN), "no second probe");
    }

    @Test
    void aSandboxWhoseCopyStillSaysOpenGoesThroughOnceTheProbeClosedIt() {
        FleetProtection prober = sandbox();
        FleetProtection late = sandbox();
        open(prober);
        clock.advance(OPEN_FOR);
        assertEquals(Optional.empty(), late.refusal(account, ProviderOperation.CHARGE), "due a probe: its copy says open");
        FleetBreaker.Admission probe = firstAttempt(prober);
        prober.breaker().record(account, ProviderOperation.CHARGE, probe, null, Duration.ofMillis(10));

        FleetBreaker.Admission call = firstAttempt(late);

        assertFalse(call.probe(), "its shard has the closing: a plain call, not a refusal");
        assertEquals(1, metrics.counted(Metrics.BREAKER_HALF_OPEN));
    }

    @Test
    void whenTheBreakersStoreFailsEachSandboxFailsOpenAtABoundedRate() {
        FleetProtection sick = sandbox(viaProxy, 0.1, 10, IN_FLIGHT_AFTER, SHARDS);
        TestEnvironment.storeProxy().failNext("GetItem", pk(), StoreFault.SERVER_ERROR, 1000);
        TestEnvironment.storeProxy().failNext("UpdateItem", pk(), StoreFault.SERVER_ERROR, 1000);
        TestEnvironment.storeProxy().failNext("BatchGetItem", pk(), StoreFault.SERVER_ERROR, 1000);
        for (int call = 0; call < MIN_CALLS; call++) {
            fail(sick);
        }
        assertFalse(sick.retryBudget().mayRetry(account, ProviderOperation.CHARGE),
                "a retry needs a token this sandbox earned itself (four calls earn 0.4)");
        int admitted = 0;
        for (int call = 0; call < 50; call++) {
            try {
                fail(sick);
                admitted++;
            } catch (CircuitBreakerOpenException openHere) {
                // this sandbox's own breaker
            }
        }

        assertEquals(0, admitted, "the sandbox stopped after its own minimum of failed calls");
        assertTrue(metrics.counted(Metrics.BREAKER_STORE_FAILED) >= 1);
        clock.advance(OPEN_FOR);
        fail(sick);
        assertEquals(Optional.empty(), TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE, pk()),
                "nothing reached the store");
    }

    @Test
    void retriesAreLimitedToAShareOfTheCallsFleetWide() {
        FleetProtection first = sandbox(TestEnvironment.dynamo(), 0.1, 2, IN_FLIGHT_AFTER, 1);
        FleetProtection second = sandbox(TestEnvironment.dynamo(), 0.1, 2, IN_FLIGHT_AFTER, 1);

        assertTrue(first.retryBudget().mayRetry(account, ProviderOperation.CHARGE));
        assertTrue(second.retryBudget().mayRetry(account, ProviderOperation.CHARGE));
        assertFalse(first.retryBudget().mayRetry(account, ProviderOperation.CHARGE),
                "the burst of 2 is spent fleet-wide");
        assertFalse(second.retryBudget().mayRetry(account, ProviderOperation.CHARGE));
        assertEquals(2, metrics.counted(Metrics.RETRY_BUDGET_SPENT));

        for (int i = 0; i < 10; i++) { // ten calls earn one retry at 10 %
            firstAttempt(second);
        }
        assertTrue(second.retryBudget().mayRetry(account, ProviderOperation.CHARGE));
        assertFalse(second.retryBudget().mayRetry(account, ProviderOperation.CHARGE));
        assertEquals(0, Attr.number(shardItem(0), BreakerShard.RETRY_TOKENS, -1));
    }

    @Test
    void aSpentShardTakesItsRetryFromAnotherAndTheBurstIsSplitAcrossShards() {
        FleetProtection sandbox = sandbox(TestEnvironment.dynamo(), 0.1, 4, IN_FLIGHT_AFTER, 2);
        int granted = 0;
        while (sandbox.retryBudget().mayRetry(account, ProviderOperation.CHARGE)) {
            granted++;
        }
        assertEquals(4, granted, "two tokens in each of the two shards");
        assertEquals(0, Attr.number(shardItem(0), BreakerShard.RETRY_TOKENS, -1));
        assertEquals(0, Attr.number(shardItem(1), BreakerShard.RETRY_TOKENS, -1));
    }

    // --- the bulkhead ---------------------------------------------------------------------------------

    /** Waits (bounded) until the item holds {@code n} slots: a slot is taken by a timer thread. */
    private Map<String, Long> awaitSlots(int n) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            Map<String, Long> slots = slotShard(0).inFlight();
            if (slots.size() == n) {
                return slots;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the item never held " + n + " slots: " + slotShardItem(0));
    }

    @Test
    void callsStillInFlightFillTheAccountsCapFleetWideAndGiveTheirSlotsBackWhenTheyEnd() throws Exception {
        List<Bulkhead.InFlight> slow = new ArrayList<>();
        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            slow.add(oneShardSandbox().bulkhead().enter(account, ProviderOperation.CHARGE)); // one slow call per sandbox
        }
        awaitSlots(MAX_IN_FLIGHT);
        FleetProtection other = oneShardSandbox();

        assertEquals(Optional.of(ProviderRefusal.AT_CAPACITY), other.refusal(account, ProviderOperation.CHARGE));
        BulkheadException full = assertThrows(BulkheadException.class,
                () -> other.bulkhead().enter(account, ProviderOperation.CHARGE));
        assertTrue(full.getMessage().contains("3 charge calls to " + account + " in flight"), full.getMessage());
        assertEquals(1, metrics.counted(Metrics.PROVIDER_AT_CAPACITY), "a refused call; asking is not refusing");
        assertEquals(Optional.empty(), other.refusal(account, ProviderOperation.LOOKUP), "each operation has its own");
        assertEquals(BreakerState.CLOSED, state().state(), "a full bulkhead is not a failing provider");

        slow.get(0).close();
        assertEquals(MAX_IN_FLIGHT - 1, slotShard(0).inFlight().size(), "the ended call gave its slot back");
        clock.advance(CACHE);
        other.bulkhead().enter(account, ProviderOperation.CHARGE).close();
        for (Bulkhead.InFlight call : slow.subList(1, slow.size())) {
            call.close();
        }
        assertEquals(Map.of(), slotShard(0).inFlight());
    }

    @Test
    void aCallThatHungKeepsItsSlotUntilItsLeaseEndsWhileAnAnsweredOneGivesItsSlotBack() throws Exception {
        Bulkhead.InFlight hung = oneShardSandbox().bulkhead().enter(account, ProviderOperation.CHARGE);
        Bulkhead.InFlight answered = oneShardSandbox().bulkhead().enter(account, ProviderOperation.CHARGE);
        Map<String, Long> taken = awaitSlots(2);

        hung.hung();
        hung.close();
        answered.close();

        Map<String, Long> left = slotShard(0).inFlight();
        assertEquals(1, left.size(), "the hung call's slot stays: the provider may still be working on it");
        assertTrue(taken.keySet().containsAll(left.keySet()), left.toString());
        clock.advance(SLOT_LEASE.plusMillis(1));
        Bulkhead.InFlight next = oneShardSandbox().bulkhead().enter(account, ProviderOperation.CHARGE);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (slotShard(0).inFlight().keySet().containsAll(left.keySet())) {
            assertTrue(System.nanoTime() < until, "the next slot taken never removed it: " + slotShardItem(0));
            Thread.sleep(20);
        }
        assertEquals(1, slotShard(0).inFlight().size(), "ended with its lease, the next call's slot in its place");
        next.close();
        assertEquals(Map.of(), slotShard(0).inFlight());
    }

    @Test
    void aSandboxWhoseLastCallHungCountsItsNextCallFromItsStartThoughItsCopySaysTheAccountIsQuick() throws Exception {
        // Two shards of 16: the account is slow once a shard holds 2.
        int part = FleetProtection.SLOTS_PER_SHARD;
        FleetProtection sandbox = sandbox(TestEnvironment.dynamo(), 0.1, 10, IN_FLIGHT_AFTER, 2);
        sandbox.useShard(0);
        Bulkhead.InFlight hung = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
        awaitSlots(1); // the sandbox's copy of its shard: its own slot alone
        // Meanwhile the provider stopped answering: other sandboxes' calls hold the whole cap.
        putSlots(0, liveSlots(part));
        putSlots(1, liveSlots(part));
        hung.hung();
        hung.close();

        assertThrows(BulkheadException.class, () -> sandbox.bulkhead().enter(account, ProviderOperation.CHARGE),
                "its next call is counted at entry, against the full cap, and never sent");
        assertEquals(part, slotShard(0).inFlight().size());
        assertEquals(part, slotShard(1).inFlight().size());
        assertEquals(1, metrics.counted(Metrics.PROVIDER_AT_CAPACITY));
    }

    @Test
    void aCallQuickerThanInFlightAfterWritesNothing() {
        FleetProtection sandbox = sandbox(TestEnvironment.dynamo(), 0.1, 10, Duration.ofSeconds(30), 1);
        for (int i = 0; i < MAX_IN_FLIGHT * 3; i++) {
            sandbox.bulkhead().enter(account, ProviderOperation.CHARGE).close();
        }
        assertEquals(Map.of(), slotShardItem(0), "no slot item: nothing was counted or written");
        assertEquals(Map.of(), shardItem(0), "nor a breaker item");
    }

    @Test
    void aSlotWhoseHolderDiedEndsWithItsLeaseAndTheNextSlotTakenRemovesIt() throws Exception {
        FleetProtection dies = oneShardSandbox();
        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            dies.bulkhead().enter(account, ProviderOperation.CHARGE); // never closed: the sandbox died mid-call
        }
        Map<String, Long> dead = awaitSlots(MAX_IN_FLIGHT);
        FleetProtection next = oneShardSandbox();
        assertThrows(BulkheadException.class, () -> next.bulkhead().enter(account, ProviderOperation.CHARGE));

        clock.advance(SLOT_LEASE.plusMillis(1));
        Bulkhead.InFlight call = next.bulkhead().enter(account, ProviderOperation.CHARGE);
        Map<String, Long> slots = awaitSlots(1);

        assertTrue(dead.keySet().stream().noneMatch(slots::containsKey), "the ended slots are gone: " + slots);
        call.close();
        assertEquals(Map.of(), slotShard(0).inFlight());
    }

    @Test
    void whenTheStoreCannotTakeASlotTheCallGoesOnUncountedAndTheFailureIsAMetric() throws Exception {
        FleetProtection sick = sandbox(viaProxy, 0.1, 10, IN_FLIGHT_AFTER, 1);
        String pk = BreakerShard.slotsPk(pk(), 0);
        TestEnvironment.storeProxy().failNext("UpdateItem", pk, StoreFault.SERVER_ERROR, 1);

        Bulkhead.InFlight call = sick.bulkhead().enter(account, ProviderOperation.CHARGE);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (metrics.counted(Metrics.BREAKER_STORE_FAILED) == 0 && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        call.close();

        assertEquals(1, metrics.counted(Metrics.BREAKER_STORE_FAILED));
        assertEquals(Optional.empty(), TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE,
                pk), "nothing was counted, nothing is left to give back");
    }

    @Test
    void whileTheAccountIsSlowCallersArrivingTogetherTakeTheirSlotsAgainstTheCapAndNoMore() throws Exception {
        Bulkhead.InFlight first = oneShardSandbox().bulkhead().enter(account, ProviderOperation.CHARGE);
        awaitSlots(1); // the account is slow: one call is counted
        List<FleetProtection> fleet = new ArrayList<>();
        for (int i = 0; i < SANDBOXES; i++) {
            fleet.add(oneShardSandbox());
        }
        List<Callable<Bulkhead.InFlight>> arriving = new ArrayList<>();
        for (FleetProtection sandbox : fleet) {
            arriving.add(() -> {
                try {
                    return sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
                } catch (BulkheadException full) {
                    return null;
                }
            });
        }

        List<Optional<Bulkhead.InFlight>> entered = atOnce(arriving);

        assertEquals(MAX_IN_FLIGHT - 1, entered.stream().filter(Optional::isPresent).count(),
                "each slot was taken at entry, against the cap");
        assertEquals(MAX_IN_FLIGHT, slotShard(0).inFlight().size());
        assertEquals(SANDBOXES - (MAX_IN_FLIGHT - 1), metrics.counted(Metrics.PROVIDER_AT_CAPACITY));
        entered.forEach(call -> call.ifPresent(Bulkhead.InFlight::close));
        first.close();
        assertEquals(Map.of(), slotShard(0).inFlight());
    }

    @Test
    void aCallThatEndsWhileItsSlotIsBeingTakenGivesTheSlotBack() throws Exception {
        Bulkhead.InFlight earlier = oneShardSandbox().bulkhead().enter(account, ProviderOperation.CHARGE);
        awaitSlots(1);
        earlier.close(); // the slot map exists now: the next take is one write
        String pk = BreakerShard.slotsPk(pk(), 0);
        HeldAnswer held = TestEnvironment.storeProxy().holdNextAnswer("UpdateItem", pk);
        Bulkhead.InFlight call = sandbox(viaProxy, 0.1, 10, IN_FLIGHT_AFTER, 1).bulkhead().enter(account, ProviderOperation.CHARGE);
        assertTrue(held.awaitCommitted(Duration.ofSeconds(10)), "the slot's write reached the store");

        // The call ends while its slot's write waits for an answer: the end must wait for it too.
        Thread ending = new Thread(call::close);
        ending.start();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ending.isAlive() && ending.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() < until, "the call's end never waited");
            Thread.sleep(5);
        }
        held.letGo();
        ending.join(10_000);

        assertEquals(Map.of(), slotShard(0).inFlight(), "the slot taken as the call ended was given back");
    }

    @Test
    void aShardedBulkheadHoldsTheCapAcrossShardsAndACallWhoseShardIsFullTakesAnothers() throws Exception {
        // Two shards: the cap of 32 is split 16 and 16.
        int part = FleetProtection.SLOTS_PER_SHARD;
        FleetProtection inFirst = sandbox(TestEnvironment.dynamo(), 0.1, 10, Duration.ZERO, 2);
        inFirst.useShard(0);
        List<Bulkhead.InFlight> calls = new ArrayList<>();
        for (int i = 0; i < part; i++) {
            calls.add(inFirst.bulkhead().enter(account, ProviderOperation.CHARGE));
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (slotShard(0).inFlight().size() < part && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        clock.advance(CACHE);

        calls.add(inFirst.bulkhead().enter(account, ProviderOperation.CHARGE));
        assertEquals(1, slotShard(1).inFlight().size(), "shard 0 is full: the call took a slot of shard 1");
        FleetProtection inSecond = sandbox(TestEnvironment.dynamo(), 0.1, 10, Duration.ZERO, 2);
        inSecond.useShard(1);
        for (int i = 1; i < part; i++) {
            calls.add(inSecond.bulkhead().enter(account, ProviderOperation.CHARGE));
        }
        until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (slotShard(1).inFlight().size() < part && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        clock.advance(CACHE);
        assertEquals(2 * part, slotShard(0).inFlight().size() + slotShard(1).inFlight().size());
        assertThrows(BulkheadException.class, () -> inFirst.bulkhead().enter(account, ProviderOperation.CHARGE),
                "both shards full: 32 in flight, the cap");
        calls.forEach(Bulkhead.InFlight::close);
        assertEquals(Map.of(), slotShard(0).inFlight());
        assertEquals(Map.of(), slotShard(1).inFlight());
    }

    @Test
    void endedSlotsAnotherWriterRemovedFirstAreNotCreditedAsRoom() throws Exception {
        long ended = clock.instant().minusSeconds(60).toEpochMilli();
        long live = clock.instant().minusSeconds(1).plus(SLOT_LEASE).toEpochMilli(); // slow calls, taken a second ago
        putSlots(Map.of("live-1", Attr.n(live), "live-2", Attr.n(live), "ended", Attr.n(ended)));
        FleetProtection sandbox = oneShardSandbox();
        sandbox.refusal(account, ProviderOperation.CHARGE); // its copy: two live slots and one ended
        // Another writer removes the ended slot and takes the last of the cap's three.
        putSlots(Map.of("live-1", Attr.n(live), "live-2", Attr.n(live), "live-3", Attr.n(live)));

        assertThrows(BulkheadException.class, () -> sandbox.bulkhead().enter(account, ProviderOperation.CHARGE));
        assertEquals(Set.of("live-1", "live-2", "live-3"), slotShard(0).inFlight().keySet(), "the cap held");
    }

    private void putSlots(Map<String, AttributeValue> slots) {
        putSlots(0, slots);
    }

    /** How long a copy that shows slot shards full refuses calls, with {@link #TRUSTING_FULL_COPIES_FOR_HALF_A_PERIOD}. */
    private static Duration fullCopiesTrustedFor() {
        return TRUSTING_FULL_COPIES_FOR_HALF_A_PERIOD.dividedBy(Bulkhead.FULL_TRUSTED_FOR_PART_OF_IN_FLIGHT_AFTER);
    }

    /** Slot shard {@code k} as another writer leaves it: exactly {@code slots}. */
    private void putSlots(int k, Map<String, AttributeValue> slots) {
        TestEnvironment.dynamo().putItem(b -> b.tableName(TestEnvironment.TABLE).item(Map.of(
                "pk", Attr.s(BreakerShard.slotsPk(pk(), k)), BreakerShard.IN_FLIGHT, AttributeValue.fromM(slots))));
    }

    /** {@code n} live slots held by other sandboxes' calls. */
    private Map<String, AttributeValue> liveSlots(int n) {
        Map<String, AttributeValue> slots = new java.util.HashMap<>();
        for (int i = 0; i < n; i++) {
            slots.put("other-" + i, Attr.n(clock.instant().plusSeconds(60).toEpochMilli()));
        }
        return slots;
    }

    @Test
    void aCallWhoseShardIsFullReadsTheOthersAtOnceForTheLastFreeSlotThenRefusesWithoutARequest() {
        int shards = 8;
        int part = FleetProtection.SLOTS_PER_SHARD;
        for (int k = 0; k < shards; k++) {
            putSlots(k, liveSlots(k == 6 ? part - 1 : part)); // one slot free, in shard 6
        }
        DynamoRequestCounter requests = new DynamoRequestCounter();
        try (DynamoDbClient client = clientViaProxy(requests)) {
            FleetProtection sandbox = sandbox(client, 0.1, 10, TRUSTING_FULL_COPIES_FOR_HALF_A_PERIOD, shards);
            sandbox.useShard(0);

            Bulkhead.InFlight call = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
            assertEquals(part, slotShard(6).inFlight().size(), "the last free slot is the call's");
            assertEquals(Map.of("BatchGetItem", 1L, "GetItem", 1L, "UpdateItem", 1L), requests.snapshot(),
                    "its own shard read full, the other seven read at once, one write where there was room");
            requests.reset();

            assertThrows(BulkheadException.class, () -> sandbox.bulkhead().enter(account, ProviderOperation.CHARGE));
            assertEquals(Map.of(), requests.snapshot(), "every shard seen full just now: refused without a request");
            assertEquals(Optional.of(ProviderRefusal.AT_CAPACITY), sandbox.refusal(account, ProviderOperation.CHARGE));
            assertEquals(Map.of("GetItem", 1L), requests.snapshot(), "asking read only the breaker's shard");
            requests.reset();

            // A copy older than the part of in-flight-after it is trusted for refuses nothing.
            clock.advance(fullCopiesTrustedFor());
            assertThrows(BulkheadException.class, () -> sandbox.bulkhead().enter(account, ProviderOperation.CHARGE));
            assertEquals(Map.of("BatchGetItem", 1L), requests.snapshot(), "that much later it looks again, all at once");
            call.close();
        }
        assertEquals(part - 1, slotShard(6).inFlight().size());
    }

    @Test
    void aCopyThatShowsItsOwnShardFullIsReadAgainWithTheOthersNotWrittenTo() {
        int part = FleetProtection.SLOTS_PER_SHARD;
        putSlots(0, liveSlots(part));
        putSlots(1, liveSlots(part));
        DynamoRequestCounter requests = new DynamoRequestCounter();
        try (DynamoDbClient client = clientViaProxy(requests)) {
            FleetProtection sandbox = sandbox(client, 0.1, 10, TRUSTING_FULL_COPIES_FOR_HALF_A_PERIOD, 2);
            sandbox.useShard(0);
            assertThrows(BulkheadException.class, () -> sandbox.bulkhead().enter(account, ProviderOperation.CHARGE));
            requests.reset();

            clock.advance(fullCopiesTrustedFor());
            assertThrows(BulkheadException.class, () -> sandbox.bulkhead().enter(account, ProviderOperation.CHARGE));
            assertEquals(Map.of("BatchGetItem", 1L), requests.snapshot(),
                    "its copies too old to refuse on: both shards read at once, no write tried on a shard seen full");
            requests.reset();

            putSlots(0, liveSlots(part - 1)); // another sandbox's call gave a slot back in this sandbox's shard
            clock.advance(fullCopiesTrustedFor());
            Bulkhead.InFlight call = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
            assertEquals(Map.of("BatchGetItem", 1L, "UpdateItem", 1L), requests.snapshot(),
                    "read again, then one write where the read showed room");
            assertEquals(part, slotShard(0).inFlight().size(), "the room in its own shard is the call's");
            call.close();
        }
    }

    @Test
    void theRoomACallLeftIsTakenByItsSandboxsNextCallFirst() {
        int part = FleetProtection.SLOTS_PER_SHARD;
        putSlots(0, liveSlots(part));
        putSlots(1, liveSlots(part - 1));
        FleetProtection sandbox = sandbox(TestEnvironment.dynamo(), 0.1, 10, TRUSTING_FULL_COPIES_FOR_HALF_A_PERIOD, 2);
        sandbox.useShard(0);
        Bulkhead.InFlight first = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
        assertEquals(part, slotShard(1).inFlight().size(), "its own shard full: the call took shard 1's last slot");
        assertEquals(Optional.of(ProviderRefusal.AT_CAPACITY), sandbox.refusal(account, ProviderOperation.CHARGE));

        first.close();
        putSlots(0, liveSlots(part - 1)); // room in its own shard too
        assertEquals(Optional.empty(), sandbox.refusal(account, ProviderOperation.CHARGE),
                "it just gave a slot back: not full as it sees it");
        Bulkhead.InFlight next = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);

        assertEquals(part, slotShard(1).inFlight().size(), "the next call took the room the last one left");
        assertEquals(part - 1, slotShard(0).inFlight().size());
        next.close();
    }

    @Test
    void aSandboxWhoseShardIsFullLooksForRoomElsewhereBeforeItRefuses() {
        int part = FleetProtection.SLOTS_PER_SHARD;
        putSlots(0, liveSlots(part));
        putSlots(1, liveSlots(part - 1)); // one slot free, in shard 1
        FleetProtection looks = sandbox(TestEnvironment.dynamo(), 0.1, 10, IN_FLIGHT_AFTER, 2);
        looks.useShard(0);

        assertEquals(Optional.empty(), looks.refusal(account, ProviderOperation.CHARGE),
                "its own shard full, the other unseen: it looks before it refuses");
        Bulkhead.InFlight call = looks.bulkhead().enter(account, ProviderOperation.CHARGE);
        assertEquals(part, slotShard(1).inFlight().size(), "the call took the free slot");
        call.close();
    }

    @Test
    void onlySlowCallsMakeAShardLookSlowNotQuickOnesCountedAtEntry() {
        int part = FleetProtection.SLOTS_PER_SHARD;
        long takenNow = clock.instant().plus(SLOT_LEASE).toEpochMilli();
        long takenBefore = clock.instant().minus(IN_FLIGHT_AFTER).plus(SLOT_LEASE).toEpochMilli();
        Map<String, AttributeValue> quick = new java.util.HashMap<>(Map.of("a", Attr.n(takenNow), "b", Attr.n(takenNow),
                "c", Attr.n(takenNow)));
        putSlots(0, quick);
        FleetProtection sandbox = sandbox(TestEnvironment.dynamo(), 0.1, 10, IN_FLIGHT_AFTER, 2);
        sandbox.useShard(0);

        sandbox.bulkhead().enter(account, ProviderOperation.CHARGE).close();
        assertEquals(quick.keySet(), slotShard(0).inFlight().keySet(),
                "three slots taken at entry just now: quick calls, the account quick, the call uncounted");

        putSlots(0, Map.of("a", Attr.n(takenBefore), "b", Attr.n(takenBefore)));
        sandbox.forgetReads();
        sandbox.useShard(0);
        Bulkhead.InFlight afterSlow = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
        assertEquals(3, slotShard(0).inFlight().size(), "two slots held for in-flight-after: slow, the call counted at entry");
        afterSlow.close();

        putSlots(0, Map.of(Bulkhead.UNDER_WAY + "a", Attr.n(takenNow), Bulkhead.UNDER_WAY + "b", Attr.n(takenNow)));
        sandbox.forgetReads();
        sandbox.useShard(0);
        Bulkhead.InFlight afterUnderWay = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
        assertEquals(3, slotShard(0).inFlight().size(), "two slots taken under way: slow at once, the call counted at entry");
        afterUnderWay.close();
        assertEquals(part / 8, slotShard(0).inFlight().size(), "two of sixteen slots are what make a shard slow");
    }

    @Test
    void aSandboxsFirstCallToAnAccountCountsFromItsStartAgainAfterARestore() {
        FleetProtection sandbox = sandbox(TestEnvironment.dynamo(), 0.1, 10, Duration.ofSeconds(30), true, 1);

        Bulkhead.InFlight first = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
        assertEquals(1, slotShard(0).inFlight().size(), "its first call: counted at entry, the account unknown to it");
        first.close();
        assertEquals(Map.of(), slotShard(0).inFlight());

        Bulkhead.InFlight second = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
        assertEquals(Map.of(), slotShard(0).inFlight(), "its second call: quick until in-flight-after");
        second.close();

        ProviderAccount other = new ProviderAccount("sim", account.account() + "-other");
        Bulkhead.InFlight elsewhere = sandbox.bulkhead().enter(other, ProviderOperation.CHARGE);
        assertEquals(1, slotShard(BreakerItem.pk(other, ProviderOperation.CHARGE), 0).inFlight().size(),
                "its first call to another account: counted");
        elsewhere.close();

        sandbox.forgetReads(); // as after a SnapStart restore: a new sandbox
        putSlots(0, liveSlots(1));
        Bulkhead.InFlight restored = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
        assertEquals(2, slotShard(0).inFlight().size(), "restored, its first call counts from its start again");
        restored.close();
    }

    @Test
    void aCallUnderWayTakesItsSlotWhereTheCapHasRoomNotOverItsShardsPart() throws Exception {
        int part = FleetProtection.SLOTS_PER_SHARD;
        FleetProtection sandbox = sandbox(TestEnvironment.dynamo(), 0.1, 10, IN_FLIGHT_AFTER, 2);
        sandbox.useShard(0);
        sandbox.refusal(account, ProviderOperation.CHARGE); // its copy of shard 0: empty, the account quick
        putSlots(0, liveSlots(part)); // others filled shard 0 since

        Bulkhead.InFlight call = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE); // uncounted at entry
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (slotShard(1).inFlight().isEmpty() && System.nanoTime() < until) {
            Thread.sleep(20);
        }

        assertEquals(1, slotShard(1).inFlight().size(), "still in flight: counted in shard 1, which had room");
        assertTrue(slotShard(1).inFlight().keySet().iterator().next().startsWith(Bulkhead.UNDER_WAY),
                "named as taken under way: others reading the shard count it as slow at once");
        assertEquals(part, slotShard(0).inFlight().size(), "shard 0 stayed at its part of the cap");
        call.close();
        assertEquals(Map.of(), slotShard(1).inFlight());
    }

    @Test
    void endedSlotsThatPiledUpAreRemovedABoundedNumberPerWrite() throws Exception {
        Map<String, AttributeValue> dead = new java.util.HashMap<>();
        for (int i = 0; i < 500; i++) {
            dead.put(String.format("dead-%04d", i), Attr.n(clock.instant().minusSeconds(60).toEpochMilli()));
        }
        putSlots(dead);
        FleetProtection sandbox = oneShardSandbox();
        sandbox.refusal(account, ProviderOperation.CHARGE); // its copy of the shard: 500 ended slots

        Bulkhead.InFlight call = sandbox.bulkhead().enter(account, ProviderOperation.CHARGE);
        Map<String, Long> slots = awaitSlots(500 - Bulkhead.ENDED_SLOTS_PER_WRITE + 1);
        call.close();

        assertEquals(500 - Bulkhead.ENDED_SLOTS_PER_WRITE, slotShard(0).inFlight().size(),
                "one write removed its share of the pile, and the call's own slot came and went");
        assertTrue(slots.keySet().stream().filter(k -> k.startsWith("dead-")).count() < 500);
    }
}
