package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The benchmark's figures as a table for the terminal (bench.json has the same and more). */
final class BenchReport {
    private BenchReport() {
    }

    static String table(JsonNode f) {
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add(String.format(Locale.ROOT, "oncepay benchmark, %s, %d cores, load average %.2f at start (%s s)",
                f.path("date").asText(), f.path("cores").asInt(), f.path("loadAverageAtStart").asDouble(),
                f.path("seconds").asText()));
        lines.add("Times are this machine's this time (shared, noisy); the counts are exact.");
        if (f.path("options").path("primed").asBoolean()) {
            lines.add("Every sandbox primed at init, as the SnapStart snapshot it is restored from on AWS: its init (cold"
                    + " start, a killed sandbox's replacement) includes the priming.");
        }
        lines.add("");
        JsonNode cold = f.path("coldStart");
        lines.add(String.format("Cold start to first answer, %d run(s) per function, median (min-max), ms:",
                cold.path("charge").path("runs").size()));
        lines.add(String.format("  %-14s %-20s %-20s %-20s %-20s", "function", "init", "first invocation",
                "init + first", "client saw"));
        for (String function : Bench.FUNCTIONS) {
            JsonNode c = cold.path(function);
            lines.add(String.format("  %-14s %-20s %-20s %-20s %-20s", function, range(c.path("initMs")),
                    range(c.path("firstInvocationMs")), range(c.path("totalMs")), range(c.path("clientMs"))));
        }
        JsonNode killed = f.path("killedReplacement");
        lines.add(String.format("Killed charge sandbox (SIGKILL) to the next POST's 201: %s ms (%d of %d answered 201)",
                range(killed.path("killToAnswerMs")), killed.path("answered201").asInt(), killed.path("runs").size()));
        lines.add("");
        JsonNode early = f.path("earlyLatency");
        lines.addAll(sequential(String.format("Early regime: a new charge sandbox's charges after its first %d,",
                early.path("warmupCharges").asInt()), early));
        lines.add("  its first charges one by one, ms (added: client minus direct; function: hand-out to answer; store:"
                + " its requests' time at the local store):");
        lines.add(String.format("    %3s %7s %7s %7s %9s %7s %7s", "#", "client", "added", "function", "requests", "store",
                "own"));
        for (JsonNode c : early.path("firstCharges")) {
            lines.add(String.format("    %3d %7s %7s %7s %9d %7s %7s", c.path("charge").asInt(), c.path("clientMs").asText(),
                    c.path("addedMs").asText(), c.path("functionMs").asText(), c.path("storeRequests").asInt(),
                    c.path("storeMs").asText(), c.path("functionOwnMs").asText("-")));
        }
        lines.addAll(sequential("Warm regime (after " + f.path("options").path("warmup").asInt() + " charges),",
                f.path("addedLatency")));
        lines.addAll(throughput("Throughput, early regime (new sandboxes),", f.path("throughputEarly")));
        lines.addAll(throughput("Throughput, warm regime,", f.path("throughput")));
        lines.addAll(queued(f.path("queuedCharges")));
        lines.add("");
        lines.add("Requests per charge (DynamoDB requests by function at the store proxy; provider calls at the simulator):");
        JsonNode costs = f.path("requestsPerCharge");
        for (Map.Entry<String, String> c : List.of(
                Map.entry("firstCharge", "first charge (breaker request due)"),
                Map.entry("firstChargeBreakerCached", "first charge (breaker cached)"),
                Map.entry("replay", "replay (breaker request due)"),
                Map.entry("replayBreakerCached", "replay (breaker cached)"),
                Map.entry("queuedCharge", "queued charge (request and worker)"))) {
            JsonNode m = costs.path(c.getKey());
            lines.add(String.format("  %-38s charge %s; charge-worker %s; webhook %s; provider charges %d, lookups %d",
                    c.getValue(), counts(m.path("dynamo").path("charge")), counts(m.path("dynamo").path("charge-worker")),
                    counts(m.path("dynamo").path("webhook")), m.path("providerCharges").asInt(),
                    m.path("providerLookups").asInt()));
        }
        lines.add("Requests per wallet operation (the charge function's DynamoDB requests at the store proxy):");
        JsonNode wallet = f.path("requestsPerWalletOperation");
        Bench.WALLET_OPERATIONS.forEach(operation -> lines.add(String.format("  %-24s %s", operation,
                counts(wallet.path(operation).path("dynamo").path("charge")))));
        JsonNode hot = f.path("hotWallet");
        lines.add(String.format(Locale.ROOT, "Hot wallet, %d clients, %d charge sandboxes, debits of 1 under distinct keys,"
                + " %s s each:", hot.path("clients").asInt(), hot.path("chargeSandboxes").asInt(), hot.path("seconds").asText()));
        for (String side : List.of("oneWallet", "spread")) {
            JsonNode s = hot.path(side);
            lines.add(String.format("  %d wallet(s): %s debits/s (%d debits; other answers %s), p50 %s ms, p99 %s ms;"
                    + " DynamoDB requests per debit %s (%s), %s beyond a lone debit's (prunes, races)", s.path("wallets").asInt(),
                    s.path("perSecond").asText(), s.path("debits").asInt(),
                    s.path("failures").asInt() == 0 ? "none" : s.path("failuresByStatus").toString(),
                    s.path("p50Ms").asText(), s.path("p99Ms").asText(), s.path("dynamoPerDebit").asText(),
                    counts(s.path("dynamo")), s.path("beyondUncontendedPerDebit").asText()));
        }
        lines.add(String.format("  the wallets' balances fell by %d for %d debits of 1 answered 201",
                hot.path("balanceDebited").asLong(), hot.path("debitsAnswered201").asLong()));
        lines.add("");
        lines.add("RSS per sandbox after the load, MB:");
        Map<String, List<String>> rss = new TreeMap<>();
        for (JsonNode r : f.path("rss")) {
            rss.computeIfAbsent(r.path("run").asText() + " run, " + r.path("function").asText(), k -> new ArrayList<>())
                    .add(r.path("rssMb").asText());
        }
        rss.forEach((k, v) -> lines.add(String.format("  %-28s %s", k, String.join(", ", v))));
        return String.join("\n", lines);
    }

    /** A sequential phase's added latency ({@code earlyLatency}, {@code addedLatency}) and where it went. */
    private static List<String> sequential(String regime, JsonNode latency) {
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add(String.format(Locale.ROOT,
                "%s 1 client, no provider latency, %d charges each way: added p50 %s ms, mean %s ms, p99 %s ms", regime,
                latency.path("requests").asInt(), latency.path("addedP50Ms").asText(), latency.path("addedMeanMs").asText(),
                latency.path("addedP99Ms").asText()));
        lines.add(String.format("  oncepay p50 %s / p99 %s ms; direct to the provider p50 %s / p99 %s ms",
                latency.path("oncepay").path("p50Ms").asText(), latency.path("oncepay").path("p99Ms").asText(),
                latency.path("direct").path("p50Ms").asText(), latency.path("direct").path("p99Ms").asText()));
        if (latency.has("chargeFunctionMeanMs")) {
            lines.add(String.format("  of oncepay's mean %s ms the charge function ran %s ms (hand-out to answer); the local"
                    + " run's gateway, Runtime API and loopback HTTP took %s ms", latency.path("oncepayMeanMs").asText(),
                    latency.path("chargeFunctionMeanMs").asText(), latency.path("localRunMeanMs").asText()));
        }
        if (latency.has("storeMeanMs")) {
            lines.add(String.format("  of the function's run, %s store requests per charge took %s ms at the local store (%s ms in"
                    + " dynalite%s, the rest in the fault proxy); the function's own part: %s ms",
                    latency.path("storeRequestsPerCharge").asText(), latency.path("storeMeanMs").asText(),
                    latency.path("dynaliteMeanMs").asText(),
                    latency.has("dynaliteOwnMeanMs") ? ", of which its own work " + latency.path("dynaliteOwnMeanMs").asText()
                            + " ms and the rest the HTTP hop and the wait for its one thread" : "",
                    latency.path("chargeFunctionOwnMeanMs").asText()));
        }
        return lines;
    }

    /** Queued charges beside charges in the request ({@code queuedCharges}): latencies and sandbox time per payment. */
    private static List<String> queued(JsonNode q) {
        JsonNode held = q.path("sandboxMsPerPayment");
        return List.of("", String.format(Locale.ROOT, "Queued charges (Prefer: respond-async), %d client, provider latency"
                        + " %d ms, %d each way, alternating with charges in the request (%d failures):",
                        q.path("clients").asInt(), q.path("providerLatencyMs").asInt(), q.path("charges").asInt(),
                        q.path("failures").asInt()),
                String.format("  202 p50 %s ms, p99 %s ms; 202 -> outcome p50 %s ms, p99 %s ms; in the request 201 p50 %s"
                        + " ms, p99 %s ms", q.path("accepted").path("p50Ms").asText(),
                        q.path("accepted").path("p99Ms").asText(), q.path("toOutcome").path("p50Ms").asText(),
                        q.path("toOutcome").path("p99Ms").asText(), q.path("inRequest").path("p50Ms").asText(),
                        q.path("inRequest").path("p99Ms").asText()),
                String.format("  sandbox ms per payment (mean of %d): charge %s in the request; queued: charge %s +"
                        + " charge-worker %s", q.path("timedPayments").asInt(), held.path("chargeInRequest").asText(),
                        held.path("chargeQueued").asText(), held.path("workerQueued").asText()));
    }

    /** A throughput regime ({@code throughputEarly}, {@code throughput}): both sides, the charge sandboxes, the CPU. */
    private static List<String> throughput(String regime, JsonNode t) {
        List<String> lines = new ArrayList<>();
        JsonNode sandboxes = t.path("oncepay").path("sandboxes");
        lines.add(String.format(Locale.ROOT,
                "%s %d clients, provider latency %d ms, %d charge sandboxes (%s charges served before), %s s each: ratio %s,"
                        + " added p50 %s ms", regime, t.path("clients").asInt(), t.path("providerLatencyMs").asInt(),
                t.path("chargeSandboxes").asInt(), range(sandboxes.path("chargesBefore")), t.path("seconds").asText(),
                t.path("ratio").asText(), t.path("addedP50Ms").asText()));
        for (String side : List.of("oncepay", "direct")) {
            JsonNode s = t.path(side);
            lines.add(String.format("  %-8s %s charges/s (%d charges; other answers %s), p50 %s ms, p99 %s ms", side,
                    s.path("perSecond").asText(), s.path("charges").asInt(),
                    s.path("failures").asInt() == 0 ? "none" : s.path("failuresByStatus").toString(),
                    s.path("p50Ms").asText(), s.path("p99Ms").asText()));
        }
        lines.add(String.format("  oncepay: the charge function ran %s ms per charge (mean, hand-out to answer) with %s DynamoDB"
                + " requests (%s)", sandboxes.path("meanRunMs").asText(), t.path("oncepay").path("dynamoPerCharge").asText(),
                counts(t.path("oncepay").path("dynamo"))));
        lines.addAll(cpu(t.path("cpu")));
        return lines;
    }

    /** Each side's CPU per charge by part ({@code throughput.cpu}), three lines a side. */
    static List<String> cpu(JsonNode cpu) {
        List<String> lines = new ArrayList<>();
        for (String side : List.of("oncepay", "direct")) {
            JsonNode c = cpu.path(side);
            JsonNode ms = c.path("msPerCharge");
            List<String> parts = new ArrayList<>();
            for (BenchCpu.Part part : BenchCpu.Part.values()) {
                parts.add(part.label + " " + ms.path(part.key).asText());
            }
            lines.add(String.format(Locale.ROOT, "  %-8s CPU ms per charge: %s; ours %s, the machine's %s (other %s);"
                    + " machine busy %d%% over %s s, %d charges", side, String.join(", ", parts), ms.path("total").asText(),
                    ms.path("machine").asText(), ms.path("other").asText(), c.path("machineBusyPercent").asInt(),
                    c.path("seconds").asText(), c.path("charges").asLong()));
            for (BenchCpu.Part part : List.of(BenchCpu.Part.CHARGE_SANDBOXES, BenchCpu.Part.LOCAL_RUN)) {
                List<String> threads = new ArrayList<>();
                for (BenchCpu.Threads group : BenchCpu.Threads.of(part)) {
                    threads.add(group.label + " " + ms.path(part.threadsKey).path(group.key).asText());
                }
                threads.add("other " + ms.path(part.threadsKey).path("other").asText());
                lines.add(String.format("  %-8s   %s by thread: %s", "", part.label, String.join(", ", threads)));
            }
        }
        return lines;
    }

    private static String range(JsonNode r) {
        return String.format(Locale.ROOT, "%.0f (%.0f-%.0f)", r.path("median").asDouble(), r.path("min").asDouble(),
                r.path("max").asDouble());
    }

    /** {@code 3 (PutItem 2, UpdateItem 1)}. */
    private static String counts(JsonNode byOperation) {
        List<String> parts = new ArrayList<>();
        byOperation.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("total")) {
                parts.add(e.getKey() + " " + e.getValue().asText());
            }
        });
        return byOperation.path("total").asInt() + (parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")");
    }
}
