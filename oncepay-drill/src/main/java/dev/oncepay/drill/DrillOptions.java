package dev.oncepay.drill;

import dev.oncepay.local.LocalRunOptions;
import dev.oncepay.sim.WebhookTarget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The drill's knobs. Defaults are the benchmark configuration; {@link #smoke(long)} is the small
 * CI one. Every run is seeded: the workload (keys, amounts, client behaviours), the fault schedule
 * and the crash schedule come from {@link #seed}; timing on a real machine is not deterministic.
 *
 * @param provider the provider every tenant is charged through: {@code sim} (the simulator's
 *        generic API) or {@code stripe} (its Stripe mode: charges carry Stripe's test payment
 *        methods, some cards decline, some ask the shopper to authenticate)
 * @param payments logical payments: orders, each under a key of its own (a double click's second
 *        click and a shopper paying again add keys for the same order)
 * @param clients concurrent good clients
 * @param profile fault profile: {@code none}, {@code mild}, {@code hostile} (provider faults),
 *        {@code hostile-provider} (hostile plus real providers' habits: non-final and empty answers,
 *        long Retry-After on 5xx, 409 for keys in flight, lagging and malformed lookups),
 *        {@code store-faults} (a healthy provider; the store throttles, fails, stalls, loses answers
 *        and has an outage) or {@code all} (hostile-provider and store-faults at once)
 * @param crashes kill sandboxes (SIGKILL) at random moments during the workload
 * @param crashEvery mean time between crashes
 * @param outage length of the provider outage window ({@link Duration#ZERO}: none); longer than
 *        the breaker's 10 s delay so the breaker opens and is seen to recover
 * @param storeOutage length of the store outage of the store-faults profile ({@link Duration#ZERO}: none)
 * @param settleTimeout longest settle phase (faults and crashes off, reconcile and webhooks settle)
 * @param maxWorkload hard bound on the workload phase (clients stop retrying then)
 * @param chargeSandboxes charge sandbox JVMs (requests really race across processes)
 * @param reconcileEvery the reconcile schedule
 * @param naive also run the naive-client comparison
 * @param reportDir where report.html, summary.txt and the local run's log go
 * @param app the Lambda package (function.zip)
 * @param slowAccount null: every tenant on the one account of {@code provider}; else tenant
 *        {@link #SECOND_ACCOUNT_TENANT} is charged through a second account, on the simulator's
 *        Stripe API (pm_card_visa), whose every call takes this much longer during the workload
 *        ({@link Duration#ZERO}: a second account that is not slow), so the summary can show the
 *        healthy account's latency beside the slow one's; needs {@code provider} {@code sim}
 * @param asyncShare the share of orders (0..1) whose requests ask {@code Prefer: respond-async}: their
 *        charges go through the account's queue and the charge-worker function
 * @param queueConcurrency each account queue's event-source mapping's maximum concurrency, and so
 *        the charge-worker sandboxes per account (2..16, as the local run takes it)
 * @param merchantFailRate the share of deliveries the merchant endpoint answers {@code 500} (0..1)
 * @param merchantDark how long the merchant endpoint goes dark (every delivery waits, then {@code
 *        503}) once half the workload has started ({@link Duration#ZERO}: never)
 */
public record DrillOptions(
        String provider,
        int payments,
        int clients,
        long seed,
        String profile,
        boolean crashes,
        Duration crashEvery,
        Duration outage,
        Duration storeOutage,
        Duration settleTimeout,
        Duration maxWorkload,
        int chargeSandboxes,
        Duration reconcileEvery,
        boolean naive,
        Path reportDir,
        Path app,
        Duration slowAccount,
        double asyncShare,
        int queueConcurrency,
        double merchantFailRate,
        Duration merchantDark) {

    /** The tenant charged through the second provider account when there is one. */
    public static final String SECOND_ACCOUNT_TENANT = "merchant-c";

    public boolean stripe() {
        return provider.equals(dev.oncepay.sim.StripeMode.PROVIDER_ID);
    }

    public static final List<String> PROFILES = List.of("none", "mild", "hostile", "hostile-provider", "store-faults",
            "all");

    public DrillOptions {
        if (!LocalRunOptions.PROVIDERS.contains(provider)) {
            throw new IllegalArgumentException("--provider must be one of " + LocalRunOptions.PROVIDERS);
        }
        if (payments < 1 || payments > 1_000_000) {
            throw new IllegalArgumentException("--payments must be 1..1000000");
        }
        if (clients < 1 || clients > 256) {
            throw new IllegalArgumentException("--clients must be 1..256");
        }
        if (!PROFILES.contains(profile)) {
            throw new IllegalArgumentException("--profile must be one of " + PROFILES);
        }
        if (chargeSandboxes < 1 || chargeSandboxes > 16) {
            throw new IllegalArgumentException("--charge-sandboxes must be 1..16");
        }
        if (slowAccount != null && (slowAccount.isNegative() || !provider.equals(WebhookTarget.DEFAULT_PROVIDER_ID))) {
            throw new IllegalArgumentException("--slow-account needs --provider sim and a duration of 0 or more");
        }
        if (!(asyncShare >= 0 && asyncShare <= 1)) {
            throw new IllegalArgumentException("--async-share must be 0..1");
        }
        if (queueConcurrency < 2 || queueConcurrency > 16) {
            throw new IllegalArgumentException("--queue-concurrency must be 2..16");
        }
        if (!(merchantFailRate >= 0 && merchantFailRate <= 1)) {
            throw new IllegalArgumentException("--merchant-fail-rate must be 0..1");
        }
        if (merchantDark.isNegative()) {
            throw new IllegalArgumentException("--merchant-dark must be 0 or more");
        }
    }

    /** The share of orders paid with {@code Prefer: respond-async} unless told: enough that every run meets the queues. */
    static final double DEFAULT_ASYNC_SHARE = 0.3;
    /** Charge-worker sandboxes per account unless told: AWS's least maximum concurrency, the fewest JVMs. */
    static final int DEFAULT_QUEUE_CONCURRENCY = 2;
    /** The merchant endpoint fails a fifth of the deliveries unless told. */
    static final double DEFAULT_MERCHANT_FAIL_RATE = 0.2;

    public static DrillOptions defaults() {
        return new DrillOptions("sim", 1000, 8, 1, "hostile", true, Duration.ofSeconds(7), Duration.ofSeconds(15),
                Duration.ofSeconds(6), Duration.ofSeconds(120), Duration.ofMinutes(15), 3, Duration.ofSeconds(3), true,
                Path.of("target/drill"), Path.of("oncepay-functions/target/function.zip"), null, DEFAULT_ASYNC_SHARE,
                DEFAULT_QUEUE_CONCURRENCY, DEFAULT_MERCHANT_FAIL_RATE, Duration.ofSeconds(20));
    }

    /** The CI configuration: some tens of payments, still every kind of fault of the profile, and crashes. */
    public static DrillOptions smoke(String provider, String profile, int payments, long seed, Path app,
            Path reportDir) {
        return new DrillOptions(provider, payments, 6, seed, profile, true, Duration.ofSeconds(6), Duration.ofSeconds(12),
                Duration.ofSeconds(5), Duration.ofSeconds(90), Duration.ofMinutes(3), 3, Duration.ofSeconds(3), false,
                reportDir, app, null, DEFAULT_ASYNC_SHARE, DEFAULT_QUEUE_CONCURRENCY, DEFAULT_MERCHANT_FAIL_RATE,
                Duration.ofSeconds(8));
    }

    public static String usage() {
        return String.join("\n",
                "Usage: ./drill.sh [--skip-build] [options]",
                "  --provider P          sim | stripe (default sim): the provider every tenant is charged through;",
                "                        stripe: the simulator's Stripe mode, charges carry test payment methods",
                "                        (mostly pm_card_visa; declining cards; pm_card_authenticationRequired, whose",
                "                        shopper approves, refuses or abandons 3-D Secure)",
                "  --payments N          logical payments: orders, each under its own Idempotency-Key (default 1000)",
                "  --clients M           concurrent good clients (default 8)",
                "  --seed S              seed of workload, fault schedule and crashes (default 1)",
                "  --profile P           none | mild | hostile | hostile-provider | store-faults | all (default hostile)",
                "                        hostile: provider faults; hostile-provider: plus non-final/empty answers, long",
                "                        Retry-After, 409 in flight, lagging/malformed lookups; store-faults: the store",
                "                        throttles, fails, stalls, loses answers, has an outage; all: both at once",
                "  --no-crashes          do not kill sandboxes",
                "  --crash-every D       mean time between sandbox kills (default 7s)",
                "  --outage D            provider outage window, 0 for none (default 15s; the breaker delay is 10 s)",
                "  --store-outage D      store outage window of store-faults/all, 0 for none (default 6s)",
                "  --settle-timeout D    longest settle phase (default 120s)",
                "  --max-workload D      hard bound of the workload phase (default 15m)",
                "  --charge-sandboxes N  charge sandbox JVMs (default 3)",
                "  --reconcile-every D   reconcile schedule (default 3s)",
                "  --no-naive            skip the naive-client comparison",
                "  --report-dir DIR      report.html, summary.txt, local-run.log (default target/drill)",
                "  --app PATH            the Lambda package (default oncepay-functions/target/function.zip)",
                "  --slow-account D      tenant " + SECOND_ACCOUNT_TENANT + " pays through a second account (the simulator's",
                "                        Stripe API) that answers D later during the workload (0: not slow); the",
                "                        summary shows latency per account (needs --provider sim)",
                "  --async-share F       share of orders paid with Prefer: respond-async, 0..1 (default "
                        + DEFAULT_ASYNC_SHARE + "): answered",
                "                        202, charged by the charge-worker from the account's queue, polled to the outcome",
                "  --queue-concurrency N charge-worker sandboxes per account's queue (its mapping's maximum concurrency),",
                "                        2..16 (default " + DEFAULT_QUEUE_CONCURRENCY + ")",
                "  --merchant-fail-rate F  share of event deliveries the merchant endpoint answers 500, 0..1 (default "
                        + DEFAULT_MERCHANT_FAIL_RATE + ")",
                "  --merchant-dark D     the merchant endpoint goes dark this long (each delivery waits 2 s, then 503)",
                "                        once half the workload has started, 0 for never (default 20s)",
                "  --bench | --bench-quick  the benchmark instead of the drill (./drill.sh --bench --help for its options)",
                "Durations: 500ms, 10s, 2m (a bare number is seconds). Exit status: 0 all invariants hold,",
                "1 an invariant was violated, 2 usage error, 3 the drill could not run.");
    }

    public static DrillOptions parse(List<String> args) {
        DrillOptions o = defaults();
        String provider = o.provider;
        int payments = o.payments;
        int clients = o.clients;
        long seed = o.seed;
        String profile = o.profile;
        boolean crashes = o.crashes;
        Duration crashEvery = o.crashEvery;
        Duration outage = o.outage;
        Duration storeOutage = o.storeOutage;
        Duration settle = o.settleTimeout;
        Duration maxWorkload = o.maxWorkload;
        int chargeSandboxes = o.chargeSandboxes;
        Duration reconcileEvery = o.reconcileEvery;
        boolean naive = o.naive;
        Path reportDir = o.reportDir;
        Path app = o.app;
        Duration slowAccount = o.slowAccount;
        double asyncShare = o.asyncShare;
        int queueConcurrency = o.queueConcurrency;
        double merchantFailRate = o.merchantFailRate;
        Duration merchantDark = o.merchantDark;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                value = arg.substring(eq + 1);
                arg = arg.substring(0, eq);
            }
            switch (arg) {
                case "--no-crashes" -> {
                    crashes = false;
                    continue;
                }
                case "--no-naive" -> {
                    naive = false;
                    continue;
                }
                case "-h", "--help" -> throw new IllegalArgumentException("");
                default -> {
                }
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                value = args.get(++i);
            }
            try {
                switch (arg) {
                    case "--provider" -> provider = value.trim().toLowerCase(Locale.ROOT);
                    case "--payments" -> payments = Integer.parseInt(value.trim());
                    case "--clients" -> clients = Integer.parseInt(value.trim());
                    case "--seed" -> seed = Long.parseLong(value.trim());
                    case "--profile", "--fault-profile" -> profile = value.trim().toLowerCase(Locale.ROOT);
                    case "--crash-every" -> crashEvery = LocalRunOptions.duration(value);
                    case "--outage" -> outage = LocalRunOptions.duration(value);
                    case "--store-outage" -> storeOutage = LocalRunOptions.duration(value);
                    case "--settle-timeout" -> settle = LocalRunOptions.duration(value);
                    case "--max-workload" -> maxWorkload = LocalRunOptions.duration(value);
                    case "--charge-sandboxes" -> chargeSandboxes = Integer.parseInt(value.trim());
                    case "--reconcile-every" -> reconcileEvery = LocalRunOptions.duration(value);
                    case "--report-dir" -> reportDir = Path.of(value);
                    case "--app" -> app = Path.of(value);
                    case "--slow-account" -> slowAccount = LocalRunOptions.duration(value);
                    case "--async-share" -> asyncShare = Double.parseDouble(value.trim());
                    case "--queue-concurrency" -> queueConcurrency = Integer.parseInt(value.trim());
                    case "--merchant-fail-rate" -> merchantFailRate = Double.parseDouble(value.trim());
                    case "--merchant-dark" -> merchantDark = LocalRunOptions.duration(value);
                    default -> throw new IllegalArgumentException("unknown option " + arg);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(arg + ": not a number: " + value);
            }
        }
        if (crashEvery.isZero() || crashEvery.isNegative() || reconcileEvery.isZero() || reconcileEvery.isNegative()
                || settle.isNegative() || settle.isZero()) {
            throw new IllegalArgumentException("durations must be positive");
        }
        return new DrillOptions(provider, payments, clients, seed, profile, crashes, crashEvery, outage, storeOutage, settle,
                maxWorkload,
                chargeSandboxes, reconcileEvery, naive, reportDir, app, slowAccount, asyncShare, queueConcurrency,
                merchantFailRate, merchantDark);
    }
}
