package dev.oncepay.provider.policy.sim;

import dev.oncepay.provider.policy.sim.FleetSimulation.Result;
import dev.oncepay.provider.policy.sim.Provider.Mode;
import dev.oncepay.provider.policy.sim.Provider.Phase;
import dev.oncepay.testkit.model.DynamoDbModel;
import dev.oncepay.testkit.model.ItemLoad;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * The fleet simulation's scenarios at each rate of charges, and their report as a markdown table:
 * (a) requests reaching a dead provider, (b) probes per open period, (c) payments refused at an
 * error rate, (d) payments refused while the provider is slow but right, (e) the hottest item's
 * peak second, (f) store requests per healthy charge.
 */
final class FleetReport {
    static final int[] RATES = {6, 100, 1000, 5000};
    /** The seed of every run; {@code -DfleetSim.seed=N} runs the same scenarios on other draws. */
    static final long SEED = Long.getLong("fleetSim.seed", 20260105L);
    /** Sandboxes a fleet may run at once; beyond it Lambda throttles (a merchant at 5,000/s raised its quota). */
    static final int CONCURRENCY_LIMIT = 10_000;
    static final double[] ERROR_RATES = {0.005, 0.02, 0.10};

    /** One rate's scenarios. */
    record RateResults(int rate, Result healthy, Result refusing, Result unanswering, List<Result> errors,
            Result slow) {
        List<Result> all() {
            List<Result> all = new ArrayList<>(List.of(healthy, refusing, unanswering));
            all.addAll(errors);
            all.add(slow);
            return all;
        }

        /** The scenario whose hottest item came closest to a partition's limit. */
        Result hottest() {
            return all().stream().filter(r -> r.hottest() != null)
                    .max(Comparator.comparingDouble(r -> DynamoDbModel.peakShare(r.hottest()))).orElseThrow();
        }

        long throttles() {
            return all().stream().mapToLong(Result::throttles).sum();
        }
    }

    private FleetReport() {
    }

    /**
     * Each scenario starts from an empty table and no sandboxes. Outages and the slow period start
     * after 5 healthy seconds and last about three breaker delays (32 and 30 s), then the provider
     * is healthy again; error rates start after 5 healthy seconds too and last 30 s. Lengths keep every rate's run within seconds of wall time.
     */
    static List<Scenario> scenarios(int rate) {
        Duration s5 = Duration.ofSeconds(5);
        List<Scenario> scenarios = new ArrayList<>();
        scenarios.add(new Scenario("healthy", rate, Duration.ofSeconds(20), List.of(Phase.healthy(Duration.ZERO, 0)), s5));
        scenarios.add(new Scenario("dead: connection refused", rate, Duration.ofSeconds(45), List.of(
                Phase.healthy(Duration.ZERO, 0), Phase.of(s5, Mode.REFUSING),
                Phase.healthy(Duration.ofSeconds(37), 0)), s5));
        scenarios.add(new Scenario("dead: no answer", rate, Duration.ofSeconds(45), List.of(
                Phase.healthy(Duration.ZERO, 0), Phase.of(s5, Mode.UNANSWERING),
                Phase.healthy(Duration.ofSeconds(37), 0)), s5));
        for (double errorRate : ERROR_RATES) {
            scenarios.add(new Scenario(String.format(Locale.ROOT, "%.1f %% errors", errorRate * 100), rate,
                    Duration.ofSeconds(35), List.of(Phase.healthy(Duration.ZERO, 0), Phase.healthy(s5, errorRate)), s5));
        }
        scenarios.add(new Scenario("slow: 4.5 s", rate, Duration.ofSeconds(40), List.of(
                Phase.healthy(Duration.ZERO, 0), Phase.of(s5, Mode.SLOW), Phase.healthy(Duration.ofSeconds(35), 0)), s5));
        return scenarios;
    }

    /** Every scenario at every rate, with the protection {@code protection} builds for that rate. */
    static List<RateResults> run(IntFunction<ProtectedFleet.Factory> protection) {
        List<FleetSimulation.Run> runs = new ArrayList<>();
        for (int rate : RATES) {
            for (Scenario scenario : scenarios(rate)) {
                runs.add(new FleetSimulation.Run(scenario, protection.apply(rate), SEED + rate, CONCURRENCY_LIMIT,
                        FleetSimulation.Routing.configured()));
            }
        }
        List<Result> all = FleetSimulation.runAll(runs);
        List<RateResults> results = new ArrayList<>();
        int perRate = all.size() / RATES.length;
        for (int i = 0; i < RATES.length; i++) {
            List<Result> r = all.subList(i * perRate, (i + 1) * perRate);
            results.add(new RateResults(RATES[i], r.get(0), r.get(1), r.get(2), r.subList(3, 6), r.get(6)));
        }
        return results;
    }

    static String markdown(List<RateResults> results) {
        StringBuilder md = new StringBuilder();
        md.append("| charges/s | (a) requests reaching a dead provider: refused · unanswered (non-probe) "
                + "| (b) probes per open period: max (open periods) "
                + "| (c) refused at 0.5 % · 2 % · 10 % errors "
                + "| (d) refused while answered in 4.5 s (below the cap; below 90 % of it; beyond an exact cap's) "
                + "| (e) hottest item's peak second: writes (WCU) · reads (RCU); throttled "
                + "| (f) store requests per healthy charge |\n");
        md.append("|---:|---|---|---|---|---|---:|\n");
        for (RateResults r : results) {
            ItemLoad hot = r.hottest().hottest();
            md.append(String.format(Locale.ROOT, "| %d | %d · %d | %d (%d) | %s | %d (%d; %d; %d) | %d (%d) · %d (%.0f); %d | %.3f |%n",
                    r.rate(), r.refusing().deadProviderRequests(), r.unanswering().deadProviderRequests(),
                    r.refusing().maxProbesPerOpening(), r.refusing().openings(),
                    String.join(" · ", r.errors().stream().map(FleetReport::refusedShare).toList()),
                    r.slow().refused(), r.slow().refusedBelowCap(), r.slow().refusedBelowNineTenthsOfCap(),
                    r.slow().refusedBeyondExactCap(),
                    hot.maxWritesPerSecond(), hot.maxWriteUnitsPerSecond(), hot.maxReadsPerSecond(),
                    hot.maxReadUnitsPerSecond(), r.throttles(), r.healthy().storeRequestsPerCharge()));
        }
        md.append("\n| charges/s | scenario | charges | succeeded | failed | refused (at capacity) | Lambda-throttled "
                + "| provider requests | probes | openings | max sandboxes | max calls in flight | store requests "
                + "| hottest item: peak writes/s (WCU) · reads/s (RCU) | throttled | breaker store failures |\n");
        md.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
        for (RateResults r : results) {
            for (Result s : r.all()) {
                ItemLoad hot = s.hottest();
                md.append(String.format(Locale.ROOT,
                        "| %d | %s | %d | %d | %d | %d (%d) | %d | %d | %d | %d | %d | %d | %d | %s | %d | %d |%n",
                        r.rate(), s.scenario().name(), s.charges(), s.succeeded(), s.failed(), s.refused(),
                        s.refusedAtCapacity(),
                        s.lambdaThrottled(), s.providerRequests(), s.probes(), s.openings(), s.maxSandboxes(),
                        s.maxCallsInFlight(), s.storeRequests(),
                        hot == null ? "-" : String.format(Locale.ROOT, "%d (%d) · %d (%.0f)", hot.maxWritesPerSecond(),
                                hot.maxWriteUnitsPerSecond(), hot.maxReadsPerSecond(), hot.maxReadUnitsPerSecond()),
                        s.throttles(), s.storeFailures()));
            }
        }
        return md.toString();
    }

    private static String refusedShare(Result r) {
        return String.format(Locale.ROOT, "%d (%.1f %%)", r.refused(), 100.0 * r.refused() / Math.max(1, r.charges()));
    }
}
