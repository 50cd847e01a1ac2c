package dev.oncepay.provider.policy.sim;

import dev.oncepay.provider.policy.sim.ProtectedFleet.CallLimits;
import dev.oncepay.provider.policy.sim.SandboxProtection.Admission;
import dev.oncepay.provider.policy.sim.SandboxProtection.Call;
import dev.oncepay.testkit.SettableClock;
import dev.oncepay.testkit.model.DynamoDbModel;
import dev.oncepay.testkit.model.ItemLoad;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A fleet of Lambda sandboxes charging through one provider account, simulated: discrete events on
 * a virtual clock, one thread, one seeded {@link Random}, so one seed gives one result.
 *
 * <p>Charges arrive as a Poisson process. Each takes a free sandbox (one charge at a time each), or
 * a new one while the fleet is under {@code concurrencyLimit} (else Lambda throttles it). Which
 * free sandbox is the {@link Routing}'s choice. Each
 * sandbox has its own {@link SandboxProtection} over the shared {@link DynamoDbModel} and clock. A
 * charge asks its protection for leave, sends attempts to the {@link Provider}, retries retryable
 * failures as {@code ProviderCalls} does (full-jitter backoff, only while a whole further attempt
 * fits the deadline, a retry token each) and reports every attempt.
 */
public final class FleetSimulation {
    static final String TABLE = "payments";
    private static final Logger POLICY_LOG = Logger.getLogger("dev.oncepay.provider.policy");
    private static final Instant START = Instant.parse("2026-01-05T09:00:00Z");

    /**
     * Which free sandbox Lambda hands a charge to; it does not document this. WARMEST: the one that
     * finished last (what the report assumes); RANDOM: any free one alike, a harsher assumption
     * (each sandbox's copies are older when a charge reaches it).
     */
    enum Routing {
        WARMEST, RANDOM;

        /** The report's routing: the warmest, unless {@code -DfleetSim.routing=random}. */
        static Routing configured() {
            return valueOf(System.getProperty("fleetSim.routing", "warmest").toUpperCase(Locale.ROOT));
        }
    }

    private record Event(long at, long sequence, Runnable action, boolean[] cancelled) implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(at, other.at);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private static final class Sandbox {
        final SandboxProtection protection;

        Sandbox(SandboxProtection protection) {
            this.protection = protection;
        }
    }

    private final Scenario scenario;
    private final int concurrencyLimit;
    private final Random random;
    private final SettableClock clock = SettableClock.stoppedAt(START);
    private final DynamoDbModel store = new DynamoDbModel(TABLE, clock);
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final ProtectedFleet fleet;
    private final Provider provider;
    private final CallLimits limits;
    private final Routing routing;
    /** Free sandboxes, the one that finished last at the end. */
    private final List<Sandbox> idle = new ArrayList<>();
    private long now;
    private long sequence;
    private int sandboxes;
    private int callsInFlight;
    /** Calls in flight behind the exact cap the fleet's is measured against. */
    private int exactInFlight;
    private final Tally tally = new Tally();

    /** What one scenario counted. */
    static final class Tally {
        long charges;
        long lambdaThrottled;
        long succeeded;
        long failed;
        long refused;
        long refusedAtCapacity;
        long refusedBelowCap;
        long refusedBelowNineTenthsOfCap;
        /** Charges an exact fleet-wide cap, fed the same arrivals, would have refused. */
        long refusedByExactCap;
        long providerRequests;
        long deadProviderRequests;
        long probes;
        final TreeMap<Long, Long> probesByOpening = new TreeMap<>();
        int maxSandboxes;
        int maxCallsInFlight;
        long chargesMeasured;
        long storeRequestsAtMeasureStart = -1;
    }

    /** One scenario's outcome; store figures over the whole run, the healthy-path cost from {@code measureFrom}. */
    record Result(Scenario scenario, long charges, long succeeded, long failed, long refused, long refusedAtCapacity,
            long refusedBelowCap, long refusedBelowNineTenthsOfCap, long refusedByExactCap,
            long lambdaThrottled, long providerRequests, long deadProviderRequests, long probes,
            long maxProbesPerOpening, long openings, int maxSandboxes, int maxCallsInFlight, long storeRequests,
            double storeRequestsPerCharge, ItemLoad hottest, long throttles, long storeFailures, int thresholdVolume,
            int inFlightCap) {
        /** Refused beyond what an exact fleet-wide cap refused of the same arrivals: payments a perfect bulkhead would have let through. */
        long refusedBeyondExactCap() {
            return Math.max(0, refused - refusedByExactCap);
        }
    }

    FleetSimulation(Scenario scenario, ProtectedFleet.Factory factory, long seed, int concurrencyLimit, Routing routing) {
        this.scenario = scenario;
        this.routing = routing;
        this.concurrencyLimit = concurrencyLimit;
        this.random = new Random(seed);
        this.fleet = factory.create(store, TABLE, clock, this::schedule);
        this.limits = fleet.limits();
        this.provider = new Provider(scenario.phases(), limits.readTimeout());
    }

    Result run() {
        long end = scenario.length().toNanos();
        schedule(nextArrival(), () -> arrive(end));
        schedule(scenario.measureFrom(), () -> tally.storeRequestsAtMeasureStart = store.requestCount());
        while (!events.isEmpty()) {
            Event event = events.poll();
            if (event.cancelled()[0]) {
                continue;
            }
            clock.advance(Duration.ofNanos(event.at() - now));
            now = event.at();
            event.action().run();
        }
        long measuredRequests = store.requestCount() - Math.max(0, tally.storeRequestsAtMeasureStart);
        return new Result(scenario, tally.charges, tally.succeeded, tally.failed, tally.refused,
                tally.refusedAtCapacity, tally.refusedBelowCap, tally.refusedBelowNineTenthsOfCap, tally.refusedByExactCap, tally.lambdaThrottled, tally.providerRequests, tally.deadProviderRequests,
                tally.probes, tally.probesByOpening.values().stream().mapToLong(Long::longValue).max().orElse(0),
                fleet.openings(), tally.maxSandboxes, tally.maxCallsInFlight, store.requestCount(),
                tally.chargesMeasured == 0 ? 0 : (double) measuredRequests / tally.chargesMeasured,
                store.hottest().orElse(null), store.throttled(), fleet.storeFailures(), fleet.thresholdVolume(),
                fleet.inFlightCap());
    }

    // --- events ------------------------------------------------------------------------------------

    private Runnable schedule(Duration delay, Runnable action) {
        boolean[] cancelled = {false};
        events.add(new Event(now + Math.max(0, delay.toNanos()), sequence++, action, cancelled));
        return () -> cancelled[0] = true;
    }

    private Duration nextArrival() {
        double seconds = -Math.log(1 - random.nextDouble()) / scenario.chargesPerSecond();
        return Duration.ofNanos((long) (seconds * 1e9));
    }

    private Duration elapsed() {
        return Duration.ofNanos(now);
    }

    private void arrive(long end) {
        Duration next = nextArrival();
        if (now + next.toNanos() < end) {
            schedule(next, () -> arrive(end));
        }
        tally.charges++;
        if (now >= scenario.measureFrom().toNanos()) {
            tally.chargesMeasured++;
        }
        Sandbox sandbox = freeSandbox();
        if (sandbox == null) {
            if (sandboxes >= concurrencyLimit) {
                tally.lambdaThrottled++;
                return;
            }
            sandboxes++;
            tally.maxSandboxes = Math.max(tally.maxSandboxes, sandboxes);
            sandbox = new Sandbox(fleet.newSandbox());
        }
        exactCap();
        Admission admission = sandbox.protection.admit();
        if (!admission.isAdmitted()) {
            refused(admission.refusal());
            idle.add(sandbox);
            return;
        }
        callsInFlight++;
        tally.maxCallsInFlight = Math.max(tally.maxCallsInFlight, callsInFlight);
        attempt(sandbox, admission.call(), 1, now);
    }

    /**
     * The same charge at an exact fleet-wide cap (one counter, no copies, no delay): admitted while
     * fewer than the cap are in flight, for as long as the provider's phase makes a call take.
     */
    private void exactCap() {
        if (exactInFlight >= fleet.inFlightCap()) {
            tally.refusedByExactCap++;
            return;
        }
        exactInFlight++;
        schedule(provider.typicalCall(elapsed()), () -> exactInFlight--);
    }

    private Sandbox freeSandbox() {
        if (idle.isEmpty()) {
            return null;
        }
        int i = routing == Routing.WARMEST ? idle.size() - 1 : random.nextInt(idle.size());
        Sandbox free = idle.get(i);
        idle.set(i, idle.get(idle.size() - 1));
        idle.remove(idle.size() - 1);
        return free;
    }

    private void refused(SandboxProtection.Refusal why) {
        tally.refused++;
        if (why == SandboxProtection.Refusal.AT_CAPACITY) {
            tally.refusedAtCapacity++;
        }
        if (callsInFlight < fleet.inFlightCap()) {
            tally.refusedBelowCap++;
        }
        if (callsInFlight * 10L < fleet.inFlightCap() * 9L) {
            tally.refusedBelowNineTenthsOfCap++;
        }
    }

    private void attempt(Sandbox sandbox, Call call, int attempt, long callStart) {
        Provider.Reply reply = provider.answer(elapsed(), random);
        tally.providerRequests++;
        if (call.probe()) {
            tally.probes++;
            tally.probesByOpening.merge(fleet.openings(), 1L, Long::sum);
        } else if (provider.phaseAt(elapsed()).mode().dead()) {
            tally.deadProviderRequests++;
        }
        schedule(reply.took(), () -> {
            boolean probe = call.probe();
            sandbox.protection.attempted(call, reply.failure(), reply.took());
            if (reply.failure() == null) {
                tally.succeeded++;
                end(sandbox, call);
                return;
            }
            Duration wait = backoff(attempt);
            boolean fits = now + wait.toNanos() + limits.attemptTimeout().toNanos()
                    <= callStart + limits.budget().toNanos();
            if (!reply.retryable() || attempt > limits.maxRetries() || !fits) {
                tally.failed++;
                end(sandbox, call);
                return;
            }
            if (!probe && !sandbox.protection.mayRetry(call)) {
                tally.failed++; // the budget is spent: the call ends with its fault, nothing refused up front
                end(sandbox, call);
                return;
            }
            schedule(wait, () -> {
                Admission next = sandbox.protection.admitAttempt(call);
                if (!next.isAdmitted()) {
                    refused(next.refusal());
                    end(sandbox, call);
                    return;
                }
                attempt(sandbox, call, attempt + 1, callStart);
            });
        });
    }

    private void end(Sandbox sandbox, Call call) {
        sandbox.protection.ended(call);
        callsInFlight--;
        idle.add(sandbox);
    }

    /** {@code FullJitterBackoff}: random(0, min(cap, base·2^(attempt-1))), drawn from the seeded random. */
    private Duration backoff(int attempt) {
        long ceiling = Math.min(limits.backoffCap().toMillis(), limits.backoffBase().toMillis() << Math.min(attempt - 1, 20));
        return Duration.ofMillis((long) (random.nextDouble() * (ceiling + 1)));
    }

    /** One simulation to run: {@code scenario} against the protection {@code factory} builds, on the draws of {@code seed}. */
    record Run(Scenario scenario, ProtectedFleet.Factory factory, long seed, int concurrencyLimit, Routing routing) {
    }

    /** Every run's result, in order. Runs share nothing (each its own store, clock and fleet), so they go on all cores at once. */
    static List<Result> runAll(List<Run> runs) {
        // The protection logs every transition and store failure: at thousands a second, noise here.
        Level level = POLICY_LOG.getLevel();
        POLICY_LOG.setLevel(Boolean.getBoolean("fleetSim.log") ? level : Level.OFF);
        try {
            return runs.parallelStream()
                    .map(r -> new FleetSimulation(r.scenario(), r.factory(), r.seed(), r.concurrencyLimit(), r.routing()).run())
                    .toList();
        } finally {
            POLICY_LOG.setLevel(level);
        }
    }
}
