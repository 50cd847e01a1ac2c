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
import dev.oncepay.store.TableItems;
import dev.oncepay.testkit.HeldAnswer;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    private static final int THRESHOLD = 4;
    private static final Duration WINDOW = Duration.ofSeconds(10);
    private static final Duration OPEN_FOR = Duration.ofSeconds(10);
    private static final Duration SLOW = Duration.ofSeconds(2);
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration CACHE = Duration.ofSeconds(1);
    private static final int SANDBOXES = 8;
    private static final int MAX_IN_FLIGHT = 3;
    /** Real time (a slot is taken by a timer): short, so the bulkhead tests wait little for it. */
    private static final Duration IN_FLIGHT_AFTER = Duration.ofMillis(100);
    private static final Duration SLOT_LEASE = Duration.ofSeconds(9);
    /** The functions' client to the store goes through the fault proxy; this one too, retries off. */
    private static DynamoDbClient viaProxy;

    private final TestClock clock = new TestClock();
    private final RecordingMetrics metrics = new RecordingMetrics(new ObjectMapper(), clock);
    private final ExecutorService threads = Executors.newFixedThreadPool(SANDBOXES);
    private ProviderAccount account;

    @BeforeAll
    static void store() {
        new TestEnvironment().start();
        viaProxy = DynamoDbClient.builder()
                .endpointOverride(URI.create(TestEnvironment.storeProxy().endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD).retryStrategy(b -> b.maxAttempts(1))
                        .apiCallTimeout(Duration.ofSeconds(3)))
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

    private FleetProtection sandbox(DynamoDbClient client, double retryShare, int retryBurst) {
        return sandbox(client, retryShare, retryBurst, IN_FLIGHT_AFTER);
    }

    private FleetProtection sandbox(DynamoDbClient client, double retryShare, int retryBurst, Duration inFlightAfter) {
        FleetProtection.Limits limits = new FleetProtection.Limits(THRESHOLD, WINDOW, OPEN_FOR, SLOW, LEASE,
                MAX_IN_FLIGHT, SLOT_LEASE);
        return new FleetProtection(client, TestEnvironment.TABLE, clock, metrics, new FleetProtection.Settings(
                Map.of(ProviderOperation.CHARGE, limits, ProviderOperation.LOOKUP, limits), CACHE, retryShare,
                retryBurst, inFlightAfter));
    }

    private FleetProtection sandbox() {
        return sandbox(TestEnvironment.dynamo(), 0.1, 10);
    }

    private List<FleetProtection> sandboxes() {
        List<FleetProtection> fleet = new ArrayList<>();
        for (int i = 0; i < SANDBOXES; i++) {
            fleet.add(sandbox());
        }
        return fleet;
    }

    private Map<String, AttributeValue> item() {
        return TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE,
                BreakerItem.pk(account, ProviderOperation.CHARGE)).orElseThrow();
    }

    private BreakerItem state() {
        return BreakerItem.from(item());
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
    void sandboxesRacingToOpenMakeExactlyOneTransition() throws Exception {
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
        assertTrue(opened.failures() >= THRESHOLD, opened::toString);
        clock.advance(CACHE); // every sandbox reads again: all of them refuse now
        for (FleetProtection sandbox : fleet) {
            assertEquals(Optional.of(ProviderRefusal.BREAKER_OPEN), sandbox.refusal(account, ProviderOperation.CHARGE));
            assertThrows(CircuitBreakerOpenException.class, () -> firstAttempt(sandbox));
        }
    }

    @Test
    void aDeadProviderGetsAtMostThresholdPlusOneRequestPerSandboxBeforeTheWholeFleetFailsFast() throws Exception {
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

        // Each sandbox learns of the opening at the latest when its next failure finds the breaker not closed.
        assertTrue(requests.get() <= THRESHOLD + SANDBOXES, () -> requests.get() + " requests reached the provider");
        assertEquals(SANDBOXES * 20, requests.get() + refusals.stream().mapToInt(Optional::orElseThrow).sum());
        assertEquals(1, metrics.counted(Metrics.BREAKER_OPEN));
        System.out.printf("dead provider, %d sandboxes x 20 calls: %d requests reached it (threshold %d)%n",
                SANDBOXES, requests.get(), THRESHOLD);
    }

    @Test
    void failuresBelowTheThresholdOrSpreadOverWindowsKeepItClosedAndHealthyCallsWriteNothing() {
        FleetProtection sandbox = sandbox();
        for (int i = 0; i < THRESHOLD - 1; i++) {
            fail(sandbox);
        }
        clock.advance(WINDOW.plusMillis(1));
        for (int i = 0; i < THRESHOLD - 1; i++) {
            fail(sandbox);
        }
        assertEquals(BreakerState.CLOSED, state().state());
        assertEquals(THRESHOLD - 1, state().failures(), "a new window began");

        Map<String, AttributeValue> before = item();
        FleetBreaker.Admission call = firstAttempt(sandbox);
        sandbox.breaker().record(account, ProviderOperation.CHARGE, call, null, Duration.ofMillis(40));
        assertEquals(before, item(), "a healthy call leaves the item as it was");
        assertEquals(0, metrics.counted(Metrics.BREAKER_OPEN));
    }

    @Test
    void slowAnswersCountAsFailures() {
        FleetProtection sandbox = sandbox();
        for (int i = 0; i < THRESHOLD; i++) {
            FleetBreaker.Admission call = firstAttempt(sandbox);
            sandbox.breaker().record(account, ProviderOperation.CHARGE, call, null, SLOW.plusMillis(1));
        }
        assertEquals(BreakerState.OPEN, state().state());
        assertEquals(1, metrics.counted(Metrics.BREAKER_OPEN));
    }

    @Test
    void sandboxesRacingForTheProbeLeaveExactlyOneHolderWhoseAnswerClosesItForEveryone() throws Exception {
        List<FleetProtection> fleet = sandboxes();
        for (int i = 0; i < THRESHOLD; i++) {
            fail(fleet.get(0));
        }
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
        for (FleetProtection sandbox : fleet) {
            assertEquals(Optional.of(ProviderRefusal.BREAKER_OPEN), sandbox.refusal(account, ProviderOperation.CHARGE),
                    "the probe's lease is live");
        }

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
        for (int i = 0; i < THRESHOLD; i++) {
            fail(dies);
        }
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
    void whenTheBreakersStoreFailsCallsGoThroughAndTheFailureIsAMetric() {
        FleetProtection healthy = sandbox();
        for (int i = 0; i < THRESHOLD; i++) {
            fail(healthy);
        }
        String pk = BreakerItem.pk(account, ProviderOperation.CHARGE);
        FleetProtection sick = sandbox(viaProxy, 0.1, 10);
        TestEnvironment.storeProxy().failNext("GetItem", pk, StoreFault.SERVER_ERROR, 1);

        FleetBreaker.Admission call = firstAttempt(sick);

        assertFalse(call.probe());
        assertEquals(1, metrics.counted(Metrics.BREAKER_STORE_FAILED));
        TestEnvironment.storeProxy().failNext("UpdateItem", pk, StoreFault.SERVER_ERROR, 2);
        sick.breaker().record(account, ProviderOperation.CHARGE, call, "503 from the provider", Duration.ofMillis(5));
        assertTrue(sick.retryBudget().mayRetry(account, ProviderOperation.CHARGE),
                "a retry token the store cannot give is granted");
        assertEquals(3, metrics.counted(Metrics.BREAKER_STORE_FAILED));
        assertEquals(1, metrics.counted(Metrics.BREAKER_OPEN), "nothing else was written");
    }

    @Test
    void retriesAreLimitedToAShareOfTheCallsFleetWide() {
        FleetProtection first = sandbox(TestEnvironment.dynamo(), 0.1, 2);
        FleetProtection second = sandbox(TestEnvironment.dynamo(), 0.1, 2);

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
        assertEquals(0, Attr.number(item(), BreakerItem.RETRY_TOKENS, -1));
    }

    // --- the bulkhead ---------------------------------------------------------------------------------

    /** Waits (bounded) until the item holds {@code n} slots: a slot is taken by a timer thread. */
    private Map<String, Long> awaitSlots(int n) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            Map<String, Long> slots = TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE,
                    BreakerItem.pk(account, ProviderOperation.CHARGE)).map(BreakerItem::from)
                    .map(BreakerItem::inFlight).orElse(Map.of());
            if (slots.size() == n) {
                return slots;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the item never held " + n + " slots: " + item());
    }

    @Test
    void callsStillInFlightFillTheAccountsCapFleetWideAndGiveTheirSlotsBackWhenTheyEnd() throws Exception {
        List<Bulkhead.InFlight> slow = new ArrayList<>();
        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            slow.add(sandbox().bulkhead().enter(account, ProviderOperation.CHARGE)); // one slow call per sandbox
        }
        awaitSlots(MAX_IN_FLIGHT);
        FleetProtection other = sandbox();

        assertEquals(Optional.of(ProviderRefusal.AT_CAPACITY), other.refusal(account, ProviderOperation.CHARGE));
        BulkheadException full = assertThrows(BulkheadException.class,
                () -> other.bulkhead().enter(account, ProviderOperation.CHARGE));
        assertTrue(full.getMessage().contains("3 of 3 charge calls to " + account), full.getMessage());
        assertEquals(1, metrics.counted(Metrics.PROVIDER_AT_CAPACITY), "a refused call; asking is not refusing");
        assertEquals(Optional.empty(), other.refusal(account, ProviderOperation.LOOKUP), "each operation has its own");
        assertEquals(BreakerState.CLOSED, state().state(), "a full bulkhead is not a failing provider");

        slow.get(0).close();
        assertEquals(MAX_IN_FLIGHT - 1, state().inFlight().size(), "the ended call gave its slot back");
        clock.advance(CACHE);
        other.bulkhead().enter(account, ProviderOperation.CHARGE).close();
        for (Bulkhead.InFlight call : slow.subList(1, slow.size())) {
            call.close();
        }
        assertEquals(Map.of(), state().inFlight());
    }

    @Test
    void aCallQuickerThanInFlightAfterWritesNothing() {
        FleetProtection sandbox = sandbox(TestEnvironment.dynamo(), 0.1, 10, Duration.ofSeconds(30));
        for (int i = 0; i < MAX_IN_FLIGHT * 3; i++) {
            sandbox.bulkhead().enter(account, ProviderOperation.CHARGE).close();
        }
        assertEquals(Optional.empty(), TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE,
                BreakerItem.pk(account, ProviderOperation.CHARGE)), "no item: nothing was counted or written");
    }

    @Test
    void aSlotWhoseHolderDiedEndsWithItsLeaseAndTheNextSlotTakenRemovesIt() throws Exception {
        FleetProtection dies = sandbox();
        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            dies.bulkhead().enter(account, ProviderOperation.CHARGE); // never closed: the sandbox died mid-call
        }
        Map<String, Long> dead = awaitSlots(MAX_IN_FLIGHT);
        FleetProtection next = sandbox();
        assertThrows(BulkheadException.class, () -> next.bulkhead().enter(account, ProviderOperation.CHARGE));

        clock.advance(SLOT_LEASE.plusMillis(1));
        Bulkhead.InFlight call = next.bulkhead().enter(account, ProviderOperation.CHARGE);
        Map<String, Long> slots = awaitSlots(1);

        assertTrue(dead.keySet().stream().noneMatch(slots::containsKey), "the ended slots are gone: " + slots);
        call.close();
        assertEquals(Map.of(), state().inFlight());
    }

    @Test
    void whenTheStoreCannotTakeASlotTheCallGoesOnUncountedAndTheFailureIsAMetric() throws Exception {
        FleetProtection sick = sandbox(viaProxy, 0.1, 10);
        String pk = BreakerItem.pk(account, ProviderOperation.CHARGE);
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
        Bulkhead.InFlight first = sandbox().bulkhead().enter(account, ProviderOperation.CHARGE);
        awaitSlots(1); // the account is slow: one call is counted
        List<FleetProtection> fleet = sandboxes();
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
        assertEquals(MAX_IN_FLIGHT, state().inFlight().size());
        assertEquals(SANDBOXES - (MAX_IN_FLIGHT - 1), metrics.counted(Metrics.PROVIDER_AT_CAPACITY));
        entered.forEach(call -> call.ifPresent(Bulkhead.InFlight::close));
        first.close();
        assertEquals(Map.of(), state().inFlight());
    }

    @Test
    void aCallThatEndsWhileItsSlotIsBeingTakenGivesTheSlotBack() throws Exception {
        Bulkhead.InFlight earlier = sandbox().bulkhead().enter(account, ProviderOperation.CHARGE);
        awaitSlots(1);
        earlier.close(); // the slot map exists now: the next take is one write
        String pk = BreakerItem.pk(account, ProviderOperation.CHARGE);
        HeldAnswer held = TestEnvironment.storeProxy().holdNextAnswer("UpdateItem", pk);
        Bulkhead.InFlight call = sandbox(viaProxy, 0.1, 10).bulkhead().enter(account, ProviderOperation.CHARGE);
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

        assertEquals(Map.of(), state().inFlight(), "the slot taken as the call ended was given back");
    }
}
