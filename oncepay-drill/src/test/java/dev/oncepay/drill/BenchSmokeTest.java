package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.local.LambdaPackage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The quick benchmark ({@code ./drill.sh --bench-quick}) end to end through the real local run:
 * bench.json carries every figure, each from a run that really happened — never a timing asserted,
 * only presence, sane signs and the exact counts (a killed sandbox's next request answered 201, a
 * first charge one provider call, its replay none, a queued charge one, by the worker; each wallet
 * operation's DynamoDB requests; the hot wallet's balance down by exactly the debits answered 201),
 * and the bounds the provider's latency sets on the sandbox time of a charge in the request and of
 * a queued one's worker.
 */
@Tag("local-run")
@Tag("slow")
class BenchSmokeTest {
    @Test
    @Timeout(300)
    void theQuickBenchWritesEveryFigure() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("package.json"))) {
            root = root.getParent();
        }
        Path app = LambdaPackage.built();
        BenchOptions options = BenchOptions.quick().at(root.resolve("target/bench-test"), app);

        Bench.Outcome outcome = Bench.run(options, System.out);

        JsonNode f = new ObjectMapper().readTree(Files.readString(outcome.json()));
        for (String function : Bench.FUNCTIONS) {
            JsonNode cold = f.path("coldStart").path(function);
            assertEquals(options.coldRepeats(), cold.path("runs").size(), function);
            for (String figure : List.of("initMs", "firstInvocationMs", "totalMs", "clientMs")) {
                assertTrue(cold.path(figure).path("median").asDouble() > 0, function + " " + figure + ": " + cold);
            }
        }
        JsonNode killed = f.path("killedReplacement");
        assertEquals(options.killRepeats(), killed.path("answered201").asInt(), "no 502 after a kill: " + killed);
        assertTrue(killed.path("killToAnswerMs").path("median").asDouble() > 0, killed.toString());

        for (String regime : List.of("earlyLatency", "addedLatency")) {
            JsonNode latency = f.path(regime);
            assertEquals(regime.equals("earlyLatency") ? options.earlyCharges() : options.latencyRequests(),
                    latency.path("requests").asInt(), regime + ": " + latency);
            assertTrue(latency.path("oncepay").path("p99Ms").asDouble() >= latency.path("oncepay").path("p50Ms").asDouble());
            assertTrue(latency.path("direct").path("p50Ms").asDouble() > 0, latency.toString());
            assertTrue(latency.has("addedP50Ms") && latency.has("addedP99Ms") && latency.has("addedMeanMs"), latency.toString());
            assertTrue(latency.path("chargeFunctionMeanMs").asDouble() > 0, latency.toString());
            // dynalite's own work on the charge's store requests, inside the time they took at the store
            assertTrue(latency.path("dynaliteOwnMeanMs").asDouble() > 0
                    && latency.path("dynaliteOwnMeanMs").asDouble() < latency.path("dynaliteMeanMs").asDouble(), latency.toString());
            assertTrue(latency.path("oncepayMeanMs").asDouble() > latency.path("chargeFunctionMeanMs").asDouble(),
                    "the client's time includes the function's: " + latency);
        }
        // A new sandbox's first charges one by one, from its first (which started it) on: each a first
        // charge's three store requests at least (a breaker request may add one), each timed inside its client's time.
        JsonNode early = f.path("earlyLatency");
        assertEquals(options.earlyWarmup(), early.path("warmupCharges").asInt(), early.toString());
        JsonNode series = early.path("firstCharges");
        assertEquals(Math.min(Bench.EARLY_SERIES, options.earlyWarmup() + options.earlyCharges()), series.size(), early.toString());
        for (int i = 0; i < series.size(); i++) {
            JsonNode c = series.get(i);
            assertEquals(i + 1, c.path("charge").asInt(), c.toString());
            assertEquals(201, c.path("status").asInt(), c.toString());
            assertTrue(c.path("storeRequests").asInt() >= 3, c.toString());
            assertTrue(c.path("functionMs").asDouble() > c.path("storeMs").asDouble()
                    && c.path("clientMs").asDouble() > c.path("functionMs").asDouble(), c.toString());
        }

        for (String regime : List.of("throughputEarly", "throughput")) {
            JsonNode throughput = f.path(regime);
            for (String side : List.of("oncepay", "direct")) {
                assertTrue(throughput.path(side).path("charges").asInt() > 0, regime + " " + side + ": " + throughput);
                assertTrue(throughput.path(side).path("perSecond").asDouble() > 0, regime + " " + side + ": " + throughput);
            }
            assertTrue(throughput.path("ratio").asDouble() > 0, regime + ": " + throughput);
            JsonNode sandboxes = throughput.path("oncepay").path("sandboxes");
            assertEquals(options.throughputSandboxes(), sandboxes.path("each").size(), regime + ": " + sandboxes);
            assertTrue(sandboxes.path("meanRunMs").asDouble() > 0, regime + ": " + sandboxes);
            // Every charge claims its key and records its payment: two PutItems at least, however the breaker requests fall.
            assertTrue(throughput.path("oncepay").path("dynamoPerCharge").asDouble() >= 2, regime + ": " + throughput);
            assertEquals(0, throughput.path("direct").path("dynamo").path("total").asInt(), regime + ": " + throughput);
        }
        JsonNode throughput = f.path("throughput");
        // CPU per charge by part: every figure there, those the side's charges run through above zero.
        Map<String, List<String>> busy = Map.of(
                "oncepay", List.of("chargeSandboxes", "otherSandboxes", "dynalite", "localRun", "bench", "total", "machine"),
                "direct", List.of("localRun", "bench", "total", "machine"));
        for (String side : List.of("oncepay", "direct")) {
            JsonNode cpu = throughput.path("cpu").path(side);
            JsonNode ms = cpu.path("msPerCharge");
            assertEquals(throughput.path(side).path("charges").asInt() > 0, cpu.path("charges").asLong() > 0, side + ": " + cpu);
            assertTrue(cpu.path("seconds").asDouble() > 0, side + ": " + cpu);
            for (BenchCpu.Part part : BenchCpu.Part.values()) {
                assertTrue(ms.path(part.key).isNumber() && ms.path(part.key).asDouble() >= 0, side + " " + part + ": " + cpu);
            }
            for (BenchCpu.Threads group : BenchCpu.Threads.values()) {
                assertTrue(ms.path(group.part.threadsKey).path(group.key).asDouble() >= 0, side + " " + group + ": " + cpu);
            }
            for (String part : busy.get(side)) {
                assertTrue(ms.path(part).asDouble() > 0, side + " " + part + ": " + cpu);
            }
            assertTrue(ms.path("localRunThreads").path("simulator").asDouble() > 0, side + ": " + cpu);
        }
        assertTrue(throughput.path("cpu").path("oncepay").path("msPerCharge").path("localRunThreads").path("gateway")
                .asDouble() > 0, throughput.toString());
        // The charge sandboxes' request threads ran the charges (the JIT's share moves with the regime).
        assertTrue(throughput.path("cpu").path("oncepay").path("msPerCharge").path("chargeSandboxThreads").path("request")
                .asDouble() > 0, throughput.toString());
        assertTrue(outcome.table().contains("CPU ms per charge"), outcome.table());

        // Queued charges beside charges in the request: every one succeeded, and each kind held the
        // sandboxes it should: in the request the charge sandbox waits out the provider's latency; queued,
        // the worker does, and the charge sandbox answers the 202 before any provider call.
        JsonNode queued = f.path("queuedCharges");
        assertEquals(options.queuedCharges(), queued.path("charges").asInt(), queued.toString());
        assertEquals(0, queued.path("failures").asInt(), queued.toString());
        for (String figure : List.of("accepted", "toOutcome", "inRequest")) {
            assertTrue(queued.path(figure).path("p50Ms").asDouble() > 0
                    && queued.path(figure).path("p99Ms").asDouble() >= queued.path(figure).path("p50Ms").asDouble(),
                    figure + ": " + queued);
        }
        JsonNode held = queued.path("sandboxMsPerPayment");
        double providerLatency = options.providerLatency().toMillis();
        assertTrue(queued.path("timedPayments").asInt() > 0, queued.toString());
        assertTrue(held.path("chargeInRequest").asDouble() >= providerLatency, held.toString());
        assertTrue(held.path("workerQueued").asDouble() >= providerLatency, held.toString());
        assertTrue(held.path("chargeQueued").asDouble() > 0, held.toString());
        assertTrue(outcome.table().contains("Queued charges"), outcome.table());

        JsonNode costs = f.path("requestsPerCharge");
        for (String measured : List.of("firstCharge", "firstChargeBreakerCached", "replay", "replayBreakerCached",
                "queuedCharge")) {
            JsonNode charge = costs.path(measured).path("dynamo").path("charge");
            assertTrue(charge.path("PutItem").asInt() >= 1, measured + " claims its key first: " + costs);
            assertEquals(0, costs.path(measured).path("dynamo").path("reconcile").path("total").asInt(), measured);
        }
        assertEquals(1, costs.path("firstCharge").path("providerCharges").asInt(), costs.toString());
        assertEquals(1, costs.path("firstChargeBreakerCached").path("providerCharges").asInt(), costs.toString());
        // A queued charge is charged once, by the worker, which reads and settles the payment itself.
        assertEquals(1, costs.path("queuedCharge").path("providerCharges").asInt(), costs.toString());
        assertTrue(costs.path("queuedCharge").path("dynamo").path("charge-worker").path("total").asInt() >= 2,
                costs.toString());
        assertEquals(0, costs.path("firstCharge").path("dynamo").path("charge-worker").path("total").asInt(),
                costs.toString());
        for (String replay : List.of("replay", "replayBreakerCached")) {
            assertEquals(0, costs.path(replay).path("providerCharges").asInt(), costs.toString());
            assertTrue(costs.path(replay).path("replayed").asBoolean(), costs.toString());
            assertEquals(0, costs.path(replay).path("dynamo").path("webhook").path("total").asInt(), costs.toString());
        }

        JsonNode wallet = f.path("requestsPerWalletOperation");
        for (String operation : Bench.WALLET_OPERATIONS) {
            JsonNode dynamo = wallet.path(operation).path("dynamo");
            assertTrue(dynamo.path("charge").path("total").asInt() >= 1, operation + ": " + wallet);
            assertEquals(0, dynamo.path("webhook").path("total").asInt() + dynamo.path("reconcile").path("total").asInt(),
                    operation + " is the charge function's alone: " + wallet);
            assertEquals(0, wallet.path(operation).path("providerCharges").asInt(), operation + " never reaches the provider");
        }
        // Exact, as the wallet design spends them (docs/wallets.md, Requests): read the wallet, claim the key,
        // mark the wallet item, write the operation's item; a refusal marks after a failed debit and a
        // read; a replay reads the wallet, loses the claim, reads the key and the operation's item.
        Map<String, Map<String, Integer>> expected = Map.of(
                "firstCredit", Map.of("GetItem", 1, "PutItem", 2, "UpdateItem", 1),
                "credit", Map.of("GetItem", 1, "PutItem", 2, "UpdateItem", 1),
                "debit", Map.of("GetItem", 1, "PutItem", 2, "UpdateItem", 1),
                "debitReplay", Map.of("GetItem", 3, "PutItem", 1),
                "insufficientFunds", Map.of("GetItem", 2, "PutItem", 2, "UpdateItem", 2),
                "insufficientFundsReplay", Map.of("GetItem", 3, "PutItem", 1),
                "get", Map.of("GetItem", 1));
        for (String operation : Bench.WALLET_OPERATIONS) {
            Map<String, Integer> counted = new TreeMap<>();
            wallet.path(operation).path("dynamo").path("charge").fields().forEachRemaining(e -> {
                if (!e.getKey().equals("total")) {
                    counted.put(e.getKey(), e.getValue().asInt());
                }
            });
            assertEquals(new TreeMap<>(expected.get(operation)), counted, operation + ": " + wallet);
        }
        assertTrue(wallet.path("debitReplay").path("replayed").asBoolean(), wallet.toString());
        assertTrue(wallet.path("insufficientFundsReplay").path("replayed").asBoolean(), wallet.toString());

        JsonNode hot = f.path("hotWallet");
        for (String side : List.of("oneWallet", "spread")) {
            assertTrue(hot.path(side).path("debits").asInt() > 0, side + ": " + hot);
            assertTrue(hot.path(side).path("perSecond").asDouble() > 0, side + ": " + hot);
            assertEquals(0, hot.path(side).path("failures").asInt(), "every debit is covered: " + hot);
            assertTrue(hot.path(side).path("dynamoPerDebit").asDouble() >= 1, side + ": " + hot);
        }
        assertEquals(1, hot.path("oneWallet").path("wallets").asInt());
        assertEquals(Bench.SPREAD_WALLETS, hot.path("spread").path("wallets").asInt());
        // Each debit answered 201 took exactly its amount from its wallet: none lost, none applied twice.
        assertEquals(hot.path("debitsAnswered201").asLong(), hot.path("balanceDebited").asLong(), hot.toString());
        assertTrue(outcome.table().contains("Hot wallet"), outcome.table());

        Set<String> sandboxes = new TreeSet<>();
        for (JsonNode r : f.path("rss")) {
            assertTrue(r.path("rssMb").asDouble() > 0, r.toString());
            sandboxes.add(r.path("run").asText() + " " + r.path("function").asText() + "#" + r.path("slot").asInt());
        }
        assertEquals(Set.of("single charge#1", "single webhook#1", "single reconcile#1", "single charge-worker#1",
                "throughput charge#1", "throughput charge#2", "throughput webhook#1", "throughput reconcile#1",
                "throughput charge-worker#1"), sandboxes);
        assertTrue(outcome.table().contains("Cold start to first answer"), outcome.table());
        // The cost model priced this run: a million charges cost something in every request-metered service.
        JsonNode perMillion = f.path("cost").path("perMillionCharges");
        assertTrue(perMillion.toString().contains("DYNAMODB_WRITES") && perMillion.toString().contains("LAMBDA_DURATION"),
                f.path("cost").toString());
    }
}
