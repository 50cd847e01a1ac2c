package dev.oncepay.drill;

import dev.oncepay.local.LocalRunOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The benchmark's knobs ({@code ./drill.sh --bench}). {@link #defaults()} is the full run (about
 * 5–6 minutes on 2 cores); {@link #quick()} ({@code --bench-quick}) the smoke one (about a minute),
 * which measures every figure once, with small counts.
 *
 * @param coldRepeats cold starts per function (median and range of these)
 * @param killRepeats killed charge sandboxes (median and range)
 * @param latencyRequests sequential charges through oncepay, and as many direct, for the added latency
 * @param warmup charges per charge sandbox before a measured phase of the warm regime (and as many direct calls before
 *        the latency phase)
 * @param earlyWarmup charges each new charge sandbox serves before a measured phase of the early regime
 * @param earlyCharges sequential charges through a new charge sandbox, and as many direct, for the early regime's added latency
 * @param throughputDuration how long each side (oncepay, direct) runs in the throughput phase
 * @param throughputClients concurrent clients in the throughput phase
 * @param throughputSandboxes charge sandboxes of the throughput phase's local run
 * @param providerLatency the simulator's latency in the throughput phase
 * @param hotWalletDuration how long the throughput phase's clients debit one wallet, then eight
 * @param queuedCharges sequential charges with {@code Prefer: respond-async}, and as many in the request,
 *        alternating, at {@code providerLatency}: the {@code 202}, the time to the outcome, the sandbox time per payment
 * @param primed every sandbox primes at init ({@code ONCEPAY_PRIMING_AT_INIT=true}), as the SnapStart snapshot
 *        it is restored from on AWS holds it primed; its init (cold starts, a killed sandbox's replacement) then
 *        includes the priming, which on AWS runs once per published version
 * @param reportDir where bench.json and the local runs' logs go
 * @param app the Lambda package (function.zip)
 */
public record BenchOptions(
        int coldRepeats,
        int killRepeats,
        int latencyRequests,
        int warmup,
        int earlyWarmup,
        int earlyCharges,
        Duration throughputDuration,
        int throughputClients,
        int throughputSandboxes,
        Duration providerLatency,
        Duration hotWalletDuration,
        int queuedCharges,
        boolean primed,
        Path reportDir,
        Path app) {

    public BenchOptions {
        if (coldRepeats < 1 || killRepeats < 1 || latencyRequests < 1 || warmup < 0 || earlyWarmup < 0
                || earlyCharges < 1 || throughputClients < 1 || throughputSandboxes < 1 || throughputSandboxes > 16
                || queuedCharges < 1) {
            throw new IllegalArgumentException("counts must be positive (charge sandboxes 1..16)");
        }
        if (throughputDuration.isNegative() || throughputDuration.isZero() || providerLatency.isNegative()
                || hotWalletDuration.isNegative() || hotWalletDuration.isZero()) {
            throw new IllegalArgumentException("durations must be positive");
        }
    }

    public static BenchOptions defaults() {
        return new BenchOptions(3, 3, 200, 300, 2, 200, Duration.ofSeconds(20), 8, 8, Duration.ofMillis(200),
                Duration.ofSeconds(20), 100, false, Path.of("target/bench"),
                Path.of("oncepay-functions/target/function.zip"));
    }

    /** Every figure once, with small counts: for CI and a first look. */
    public static BenchOptions quick() {
        return new BenchOptions(1, 1, 30, 5, 2, 10, Duration.ofSeconds(4), 2, 2, Duration.ofMillis(200),
                Duration.ofSeconds(3), 10, false, Path.of("target/bench"), Path.of("oncepay-functions/target/function.zip"));
    }

    /** The same knobs, writing to {@code reportDir} and measuring the package {@code app}. */
    public BenchOptions at(Path reportDir, Path app) {
        return new BenchOptions(coldRepeats, killRepeats, latencyRequests, warmup, earlyWarmup, earlyCharges,
                throughputDuration, throughputClients, throughputSandboxes, providerLatency, hotWalletDuration,
                queuedCharges, primed, reportDir, app);
    }

    public static boolean wanted(List<String> args) {
        return args.contains("--bench") || args.contains("--bench-quick");
    }

    public static String usage() {
        return String.join("\n",
                "Usage: ./drill.sh --bench [options]      (about 5-6 minutes on 2 cores)",
                "       ./drill.sh --bench-quick [options] (every figure once, small counts: about a minute)",
                "  --cold-repeats N          cold starts per function (default 3)",
                "  --kill-repeats N          SIGKILLed charge sandboxes (default 3)",
                "  --latency-requests N      sequential charges each way, 1 client, no provider latency (default 200)",
                "  --warmup N                charges per charge sandbox before a measured phase (default 300: the warm regime)",
                "  --early-warmup N          charges each new charge sandbox serves before a measured phase of the early",
                "                            regime (default 2)",
                "  --early-charges N         sequential charges each way through a new charge sandbox, 1 client, no provider",
                "                            latency: the early regime's added latency (default 200)",
                "  --throughput-duration D   each side of the throughput phase (default 20s)",
                "  --throughput-clients N    concurrent clients (default 8)",
                "  --throughput-sandboxes N  charge sandboxes of the throughput phase (default 8)",
                "  --provider-latency D      the simulator's latency in the throughput phase (default 200ms)",
                "  --hot-wallet-duration D   the throughput clients debit one wallet, then 8 wallets (default 20s)",
                "  --queued-charges N        charges with Prefer: respond-async and as many in the request, 1 client, at the",
                "                            provider latency: 202, time to the outcome, sandbox time per payment (default 100)",
                "  --primed                  every sandbox primes at init, as the SnapStart snapshot it is restored from on",
                "                            AWS holds it (cold starts then include the priming; default: sandboxes as a",
                "                            JVM without a snapshot starts them)",
                "  --report-dir DIR          bench.json and the local runs' logs (default target/bench)",
                "  --app PATH                the Lambda package (default oncepay-functions/target/function.zip)",
                "Durations: 500ms, 10s, 2m (a bare number is seconds). Exit status: 0 measured, 2 usage error,",
                "3 the benchmark could not run.");
    }

    public static BenchOptions parse(List<String> args) {
        BenchOptions o = args.contains("--bench-quick") ? quick() : defaults();
        int cold = o.coldRepeats;
        int kills = o.killRepeats;
        int latency = o.latencyRequests;
        int warmup = o.warmup;
        int earlyWarmup = o.earlyWarmup;
        int earlyCharges = o.earlyCharges;
        Duration duration = o.throughputDuration;
        int clients = o.throughputClients;
        int sandboxes = o.throughputSandboxes;
        Duration providerLatency = o.providerLatency;
        Duration hotWallet = o.hotWalletDuration;
        int queued = o.queuedCharges;
        boolean primed = o.primed;
        Path reportDir = o.reportDir;
        Path app = o.app;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--bench") || arg.equals("--bench-quick")) {
                continue;
            }
            if (arg.equals("-h") || arg.equals("--help")) {
                throw new IllegalArgumentException("");
            }
            if (arg.equals("--primed")) {
                primed = true;
                continue;
            }
            String value;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                value = arg.substring(eq + 1);
                arg = arg.substring(0, eq);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new IllegalArgumentException(arg + " needs a value");
            }
            try {
                switch (arg) {
                    case "--cold-repeats" -> cold = Integer.parseInt(value.trim());
                    case "--kill-repeats" -> kills = Integer.parseInt(value.trim());
                    case "--latency-requests" -> latency = Integer.parseInt(value.trim());
                    case "--warmup" -> warmup = Integer.parseInt(value.trim());
                    case "--early-warmup" -> earlyWarmup = Integer.parseInt(value.trim());
                    case "--early-charges" -> earlyCharges = Integer.parseInt(value.trim());
                    case "--throughput-duration" -> duration = LocalRunOptions.duration(value);
                    case "--throughput-clients" -> clients = Integer.parseInt(value.trim());
                    case "--throughput-sandboxes" -> sandboxes = Integer.parseInt(value.trim());
                    case "--provider-latency" -> providerLatency = LocalRunOptions.duration(value);
                    case "--hot-wallet-duration" -> hotWallet = LocalRunOptions.duration(value);
                    case "--queued-charges" -> queued = Integer.parseInt(value.trim());
                    case "--report-dir" -> reportDir = Path.of(value);
                    case "--app" -> app = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + arg);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(arg + ": not a number: " + value);
            }
        }
        return new BenchOptions(cold, kills, latency, warmup, earlyWarmup, earlyCharges, duration, clients, sandboxes,
                providerLatency, hotWallet, queued, primed, reportDir, app);
    }
}
