package dev.oncepay.drill;

import dev.oncepay.local.LocalRunOptions;
import dev.oncepay.sim.StripeMode;
import dev.oncepay.testkit.FreePorts;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The chaos drill: starts the local run in this JVM, drives N logical payments from M
 * good clients through it while the provider misbehaves and sandboxes are killed, lets everything
 * settle, and judges the result against the simulator's ledger. {@code ./drill.sh} runs
 * {@link #main}; {@code DrillSmokeTest} runs {@link #run} with a small configuration.
 */
public final class Drill {
    static final String TABLE = "oncepay-drill";
    /**
     * Time compression for a drill that fits in minutes: a shorter charge timeout and lease (the
     * lease still exceeds the timeout, as in docs/design.md, "A charge in three writes"), a first
     * reconcile check after 3 s instead of 30 s, and reconcile backoff 2 s..10 s instead of
     * 1 min..6 h. The breaker keeps its production values (10 calls, 50 %, 10 s), and so do all
     * provider timeouts and retries.
     */
    static final List<String> COMPRESSED_TIME = List.of(
            "--timeout", "charge=12s",
            "--env", "ONCEPAY_IDEMPOTENCY_LEASE=15S",
            "--env", "ONCEPAY_SWEEP_FIRST_CHECK_DELAY=3S",
            "--env", "ONCEPAY_RECONCILE_BACKOFF_BASE=2S",
            "--env", "ONCEPAY_RECONCILE_BACKOFF_CAP=10S",
            "--env", "ONCEPAY_CHARGE_UNKNOWN_RETRY_AFTER=2S",
            // Above the hostile provider's lookup lag (2.5 s): "no charge" is believed only after it.
            "--env", "ONCEPAY_RECONCILE_PROVIDER_VISIBILITY_LAG=10S",
            // Stripe's search lag, 1 h in production, is the longer of the two for a Stripe payment: a
            // PENDING one whose run died before sending would wait it out, past the drill's end.
            "--env", "ONCEPAY_PROVIDER_STRIPE_SEARCH_LAG=10S",
            // The charge worker's run is bounded as charge's (12 s) plus its batch's start and answer, and
            // a message whose worker was killed is received again once both its timeout and the lease of
            // the run it started have passed, so the next worker takes the payment over at once.
            "--timeout", "charge-worker=14s",
            "--queue-visibility", "20s",
            // A charge put back on its queue (breaker open, bulkhead full) waits at most 10 s, not 5 min.
            "--env", "ONCEPAY_QUEUE_RETRY_DELAY_CAP=10S",
            // A failed event delivery is tried again after 1 s, doubling up to 5 s (not 10 s up to 1 h), and a
            // write whose relay a kill cut short is relayed by the sweep after 5 s (not 30 s): what the
            // merchant misses during the workload reaches it within the drain.
            "--env", "ONCEPAY_EVENTS_RETRY_DELAY_BASE=1S",
            "--env", "ONCEPAY_EVENTS_RETRY_DELAY_CAP=5S",
            "--env", "ONCEPAY_EVENTS_RELAY_GRACE=5S",
            // A message whose delivery sandbox died is received again after 20 s (event-delivery's timeout), not 2 min.
            "--event-visibility", "20s");
    /**
     * How long a queued charge is the worker's before the sweep's (1 h in production): half the settle
     * phase, so that the sweep settles within it a queued payment no worker could (a dead letter, a
     * worker's last run just before the horizon, whose payment the sweep first looks at twice the
     * lease later), as it would after the hour.
     */
    static Duration queueHorizon(Duration settleTimeout) {
        return settleTimeout.dividedBy(2);
    }

    /** How long a client polls a 202 itself during the workload before leaving it to the settle phase. */
    static final Duration CLIENT_POLL_WINDOW = Duration.ofSeconds(20);

    /** How long the drain waits for deliveries at most once the payments settled. */
    static final Duration EVENTS_DRAIN = Duration.ofSeconds(120);
    /** An empty event queue and nothing reaching the merchant for this long: the drain is over. */
    static final Duration EVENTS_QUIET = Duration.ofSeconds(15);

    /**
     * The outcome of one drill: the payments' verdict, the wallets', the refunds' and the merchant events'.
     *
     * @param outage what the provider's outage let through; null if it had none
     */
    public record Outcome(Oracle.Verdict verdict, WalletAudit.Verdict wallets, RefundAudit.Verdict refunds,
            EventAudit.Verdict events, OutageAudit outage, String summary, Path report) {
        public boolean ok() {
            return verdict.ok() && wallets.mismatches() == 0 && refunds.ok() && events.ok()
                    && (outage == null || outage.overBound() == 0);
        }
    }

    /** Wallet operations mixed into the workload: one for every two payments (and a few at least). */
    static int walletOperations(int payments) {
        return Math.max(12, payments / 2);
    }

    private final DrillOptions options;
    private final PrintStream out;

    Drill(DrillOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static void main(String[] args) {
        if (BenchOptions.wanted(List.of(args))) {
            Bench.main(args);
            return;
        }
        DrillOptions options;
        try {
            options = DrillOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("drill: " + e.getMessage());
            }
            System.err.println(DrillOptions.usage());
            System.exit(e.getMessage().isEmpty() ? 0 : 2);
            return;
        }
        PrintStream console = System.out;
        int status;
        try {
            // The local run's console (sandboxes, gateway, dynalite) goes to a file; the drill's own
            // progress and summary stay on the screen.
            Outcome outcome = new Drill(options, console).run();
            status = outcome.ok() ? 0 : 1;
        } catch (Exception e) {
            console.println("drill: could not run: " + e);
            e.printStackTrace(console);
            status = 3;
        }
        System.exit(status);
    }

    /** Runs the drill; everything it started is stopped before it returns. */
    public static Outcome run(DrillOptions options, PrintStream out) throws Exception {
        return new Drill(options, out).run();
    }

    Outcome run() throws Exception {
        Files.createDirectories(options.reportDir());
        List<Integer> ports = FreePorts.distinct(6);
        int apiPort = ports.get(0);
        int simPort = ports.get(1);
        int storePort = ports.get(2); // the store fault proxy, the functions' DynamoDB endpoint
        int dynalitePort = ports.get(3);
        int queuePort = ports.get(4); // ElasticMQ, the charge queues and the event queue
        int merchantPort = ports.get(5); // the merchant endpoint every tenant's events go to
        List<String> args = new ArrayList<>(List.of(
                "--app", options.app().toString(),
                "--work-dir", options.reportDir().resolve("run").toString(),
                "--api-port", Integer.toString(apiPort),
                "--sim-port", Integer.toString(simPort),
                "--dynamo-port", Integer.toString(storePort),
                "--dynalite-port", Integer.toString(dynalitePort),
                "--queue-port", Integer.toString(queuePort),
                "--merchant-port", Integer.toString(merchantPort),
                "--queue-concurrency", Integer.toString(options.queueConcurrency()),
                "--store-seed", Long.toString(options.seed()),
                "--sandboxes", "charge=" + options.chargeSandboxes() + ",webhook=1,reconcile=1",
                "--reconcile-every", options.reconcileEvery().toMillis() + "ms",
                "--table", TABLE,
                "--sim-seed", Long.toString(options.seed()),
                "--provider", options.provider()));
        if (options.slowAccount() != null) {
            args.addAll(List.of("--tenant-provider", DrillOptions.SECOND_ACCOUNT_TENANT + "=" + StripeMode.PROVIDER_ID));
        }
        args.addAll(COMPRESSED_TIME);
        args.addAll(List.of("--env", "ONCEPAY_QUEUE_HORIZON=" + queueHorizon(options.settleTimeout()).toSeconds() + "S"));
        String api = "http://127.0.0.1:" + apiPort;
        String simUrl = "http://127.0.0.1:" + simPort;
        String storeUrl = "http://127.0.0.1:" + storePort;
        String merchantUrl = "http://127.0.0.1:" + merchantPort;
        // The functions reach the provider (either API) through the tap, which notes every charge request.
        WireTap tap = WireTap.start(simUrl);
        args.addAll(List.of("--provider-url", tap.url()));
        // ... and their store through another, which counts every DynamoDB request.
        WireTap storeTap = WireTap.start(storeUrl);
        args.addAll(List.of("--env", "QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE=" + storeTap.url()));
        LocalRunOptions.parse(args, Map.of()); // fail early on a bad option
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

        FaultSchedule.Plan providerPlan = FaultSchedule.provider(options.profile(), options.seed(), options.maxWorkload(),
                options.outage(), options.slowAccount());
        FaultSchedule.Plan storePlan = FaultSchedule.store(options.profile(), options.seed(), options.maxWorkload(),
                options.storeOutage());
        FaultSchedule.Plan merchantPlan = FaultSchedule.merchant(options.merchantFailRate(), options.merchantDark());
        out.printf("drill: %d payments (%.0f %% async), %d clients, seed %d, provider %s, profile %s, crashes %s,"
                        + " provider outage %d s, store outage %d s, merchant fails %.0f %% and is dark %d s; starting the"
                        + " local run (%d charge sandboxes, %d charge-worker sandboxes per account)%n",
                options.payments(), options.asyncShare() * 100, options.clients(), options.seed(), options.provider(),
                options.profile(), options.crashes() ? "every ~" + options.crashEvery().toSeconds() + " s" : "off",
                providerPlan.outage().toSeconds(), storePlan.outage().toSeconds(), options.merchantFailRate() * 100,
                options.merchantDark().toSeconds(), options.chargeSandboxes(), options.queueConcurrency());
        long startNanos = System.nanoTime();
        Path log = options.reportDir().resolve("local-run.log");
        out.println("drill: the local run's output goes to " + log);
        try (tap; storeTap; LocalRunProcess run = LocalRunProcess.start(args, log);
                QueueWatch queues = new QueueWatch("http://127.0.0.1:" + queuePort)) {
            if (!run.awaitReady(240)) {
                throw new IOException("the local run was not ready within 240 s; see " + log);
            }
            awaitReady(http, api, Duration.ofSeconds(120));
            out.printf("drill: local run ready in %.1f s%n", (System.nanoTime() - startNanos) / 1e9);
            long loggedCalls0 = run.loggedProviderChargeCalls.get();
            int lookups0 = tap.lookupRequests();
            Map<String, Integer> dynamo0 = storeTap.dynamoRequests();
            Map<String, Integer> conditionsFailed0 = storeTap.conditionsFailed();
            Recorder recorder = new Recorder();
            List<Workload.Plan> plans = Workload.generate(options.payments(), options.seed(), options.stripe(),
                    options.asyncShare());
            if (options.slowAccount() != null) {
                plans = Workload.onStripeAccount(plans, DrillOptions.SECOND_ACCOUNT_TENANT);
            }
            List<Recorder.PaymentRecord> records = plans.stream().map(Recorder.PaymentRecord::new).toList();
            Measurements m = new Measurements(options, recorder, records);
            List<WalletRecord> walletRecords = WalletWorkload.generate(walletOperations(options.payments()),
                    options.seed()).stream().map(WalletRecord::new).toList();
            WalletClient wallets = new WalletClient(http, api);
            Map<Integer, RefundWorkload.Plan> refundPlans = RefundWorkload.generate(plans, options.seed());
            Map<Integer, List<RefundRecord>> refundsOf = new java.util.HashMap<>();
            refundPlans.forEach((i, p) -> refundsOf.put(i, p.requests().stream()
                    .map(q -> new RefundRecord(records.get(i).plan, q)).toList()));
            List<RefundRecord> refundRecords = refundsOf.values().stream().flatMap(List::stream).toList();
            RefundClient refunder = new RefundClient(http, api, recorder);

            // --- workload -----------------------------------------------------------------------
            AtomicInteger started = new AtomicInteger();
            java.util.function.DoubleSupplier progress = () -> started.get() / (double) options.payments();
            FaultSchedule faults = new FaultSchedule(http, simUrl, recorder, providerPlan, progress);
            FaultSchedule storeFaults = new FaultSchedule(http, storeUrl, recorder, storePlan, progress);
            FaultSchedule merchantFaults = new FaultSchedule(http, merchantUrl, recorder, merchantPlan, progress);
            CrashInjector crashes = new CrashInjector(run::sandboxes, recorder, options.seed(),
                    options.crashEvery());
            faults.start();
            storeFaults.start();
            merchantFaults.start();
            queues.start(recorder);
            if (options.crashes()) {
                crashes.start();
            }
            recorder.event("workload starts");
            long hardDeadline = System.nanoTime() + options.maxWorkload().toNanos();
            ExecutorService pollers = Executors.newCachedThreadPool(daemon("poller"));
            ShopperPrompt prompt = new ShopperPrompt(http, simUrl, recorder);
            GoodClient client = new GoodClient(http, api, recorder, pollers,
                    hardDeadline + options.settleTimeout().toNanos(), prompt);
            // The wallets' traffic meets the same faults and kills, beside the payments'.
            Future<?> walletTraffic = pollers.submit(() -> {
                runWallets(walletRecords, wallets, progress, hardDeadline);
                return null;
            });
            // A refunded order's shopper asks for money back once its payment succeeded.
            ExecutorService refunding = Executors.newCachedThreadPool(daemon("refund"));
            List<Future<?>> refundTraffic = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.function.Consumer<Recorder.PaymentRecord> paid = r -> {
                RefundWorkload.Plan plan = refundPlans.get(r.plan.index());
                if (plan != null) {
                    long window = Math.min(hardDeadline, System.nanoTime() + CLIENT_POLL_WINDOW.toNanos());
                    refundTraffic.add(refunding.submit(() -> {
                        refunder.refund(r, plan, refundsOf.get(r.plan.index()), refunding, window, hardDeadline,
                                Math.min(hardDeadline, System.nanoTime() + CLIENT_POLL_WINDOW.toNanos()));
                        return null;
                    }));
                }
            };
            runWorkload(records, started, hardDeadline, (r, submitter) -> client.submit(r, submitter, hardDeadline,
                    Math.min(hardDeadline, System.nanoTime() + CLIENT_POLL_WINDOW.toNanos())), paid, "client");
            walletTraffic.get();
            awaitAll(refundTraffic);
            refunding.shutdownNow();
            m.workloadEndMs = recorder.nowMs();
            crashes.close();
            faults.allOff();
            storeFaults.allOff();
            merchantFaults.allOff();
            m.merchant = merchantFaults;
            m.outageStartMs = faults.outageStartMs();
            m.outageEndMs = faults.outageEndMs();
            m.outageStats = faults.outageStats();
            if (m.outageStats != null) {
                int accounts = options.slowAccount() != null ? 2 : 1;
                m.outage = OutageAudit.judge(m.outageStats.chargeRequests(), accounts,
                        options.chargeSandboxes() + accounts * options.queueConcurrency() + 1,
                        Duration.ofMillis(m.outageEndMs - m.outageStartMs));
            }
            m.windows = providerPlan.windows();
            m.baseline = FaultSchedule.describe(providerPlan.baseline());
            m.store = storeFaults;
            m.storeInjected = storeFaults.read("/_store/injected");
            m.kills = crashes.kills();
            m.killsByFunction = crashes.byFunction().toString();
            out.printf("drill: workload done in %.1f s (%d sandbox kills); settle phase (at most %d s)%n",
                    m.workloadEndMs / 1000.0, crashes.kills(), options.settleTimeout().toSeconds());

            // --- settle -------------------------------------------------------------------------
            recorder.event("settle phase: faults off, no crashes");
            // The verdict reads dynalite itself, not through the (now healthy) fault proxy.
            Oracle oracle = new Oracle(http, api, simUrl, "http://127.0.0.1:" + dynalitePort, TABLE);
            settleWallets(walletRecords, wallets, recorder);
            settleRefunds(refundRecords, refunder, recorder);
            Settled settled = settle(oracle, client, records, recorder);
            Oracle.Snapshot snapshot = settled.table();
            pollers.shutdownNow();
            prompt.close();
            m.settleEndMs = recorder.nowMs();
            out.printf("drill: settled after %.1f s%n", (m.settleEndMs - m.workloadEndMs) / 1000.0);

            // --- verdict ------------------------------------------------------------------------
            List<Oracle.LedgerCharge> ledger = oracle.ledger();
            Oracle.Verdict verdict = oracle.verdict(records, snapshot, ledger,
                    new Oracle.Evidence(tap.chargeRequests(), List.copyOf(run.paymentLines), crashes.chargeKillsMs(),
                            settled.awaitingCustomer()), recorder);
            oracle.close();
            // Every settled payment's and refund's final state must reach the merchant: wait for the deliveries.
            Map<String, EventAudit.Expected> expectedEvents;
            try (software.amazon.awssdk.services.dynamodb.DynamoDbClient dynamo = LocalAws.client(
                    software.amazon.awssdk.services.dynamodb.DynamoDbClient.builder(), "http://127.0.0.1:" + dynalitePort)) {
                expectedEvents = EventAudit.expected(dynamo, TABLE, Workload.TENANTS);
            }
            out.printf("drill: waiting for the merchant to hear of %d settled payments and refunds (at most %d s)%n",
                    expectedEvents.size(), EVENTS_DRAIN.toSeconds());
            EventAudit.Drained drained = EventAudit.drain(http, merchantUrl, queues, expectedEvents, EVENTS_QUIET,
                    EVENTS_DRAIN);
            m.events = EventAudit.judge(expectedEvents, drained);
            recorder.event("events drained in " + drained.ms() + " ms");
            RefundAudit.Ledger refundLedger = RefundAudit.Ledger.of(Oracle.ledgerJson(http, simUrl));
            m.refunds = RefundAudit.judge(refundRecords, refundLedger,
                    RefundAudit.view(http, api, refundRecords, refundLedger));
            m.wallets = WalletAudit.judge(walletRecords, wallets, WalletAudit.stored(snapshot.walletItems()),
                    wallets.answers());
            m.providerCharges = (int) (run.loggedProviderChargeCalls.get() - loggedCalls0);
            m.providerLookups = tap.lookupRequests() - lookups0;
            // The verdict's own reads go to dynalite directly: what the tap saw is the functions' work.
            m.dynamoRequests = WireTap.since(dynamo0, storeTap.dynamoRequests());
            m.dynamoConditionsFailed = WireTap.since(conditionsFailed0, storeTap.conditionsFailed());
            m.authentications = prompt.outcomes();
            Set<String> shown = prompt.shown();
            m.awaitingNeverShown = (int) settled.awaitingCustomer().stream().filter(id -> !shown.contains(id)).count();
            m.ledgerCharges = ledger.size();
            m.breakerTransitions = new java.util.TreeMap<>(run.breakerTransitions);
            m.protectionMetrics = new java.util.TreeMap<>(run.protectionMetrics);
            m.queueDeepest = queues.deepest();
            m.queueAtEnd = queues.read();
            m.deliveries = List.copyOf(run.deliveries);
            m.eventBatches = List.copyOf(run.eventBatches);
            m.queueLagsMs = List.copyOf(run.queueLagsMs);

            // --- comparison ---------------------------------------------------------------------
            if (options.naive()) {
                out.println("drill: naive-client comparison (same workload and fault schedule, straight to the PSP)");
                naive(http, simUrl, plans, m);
            }
            String summary = Report.summary(options, verdict, m);
            Path report = Report.write(options, verdict, m, summary);
            out.println(summary);
            out.println("report: " + report.toAbsolutePath());
            return new Outcome(verdict, m.wallets, m.refunds, m.events, m.outage, summary, report);
        }
    }

    interface Submitter {
        void submit(Recorder.PaymentRecord r, int submitter) throws InterruptedException;
    }

    /**
     * M worker threads take the payments in order; a second submitter runs on a helper thread.
     * {@code paid} hears of each payment once its submitters are done.
     */
    private void runWorkload(List<Recorder.PaymentRecord> records, AtomicInteger started, long hardDeadline,
            Submitter submitter, java.util.function.Consumer<Recorder.PaymentRecord> paid, String name)
            throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        ExecutorService workers = Executors.newFixedThreadPool(options.clients(), daemon(name));
        ExecutorService helpers = Executors.newCachedThreadPool(daemon(name + "-twin"));
        try {
            for (int w = 0; w < options.clients(); w++) {
                workers.execute(() -> {
                    try {
                        for (int i = next.getAndIncrement(); i < records.size() && System.nanoTime() < hardDeadline;
                                i = next.getAndIncrement()) {
                            Recorder.PaymentRecord r = records.get(i);
                            started.incrementAndGet();
                            runPayment(r, submitter, helpers);
                            paid.accept(r);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (Exception e) {
                        e.printStackTrace(out);
                    }
                });
            }
            workers.shutdown();
            long left = hardDeadline - System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            if (!workers.awaitTermination(Math.max(1, left), TimeUnit.NANOSECONDS)) {
                workers.shutdownNow();
            }
        } finally {
            workers.shutdownNow();
            helpers.shutdownNow();
        }
    }

    private void runPayment(Recorder.PaymentRecord r, Submitter submitter, ExecutorService helpers) throws Exception {
        r.startMs = -1;
        submitAs(r.plan.behaviour(), r.plan.secondSubmitDelayMs(), s -> submitter.submit(r, s), helpers);
    }

    /**
     * Submits as submitter 0 and the second submitter the behaviour brings: a little later (with
     * the same key, or a double click's own), or at once.
     */
    interface OneSubmitter {
        void submit(int submitter) throws InterruptedException;
    }

    private static void submitAs(Workload.Behaviour behaviour, long secondSubmitDelayMs, OneSubmitter submitter,
            ExecutorService helpers) throws Exception {
        switch (behaviour) {
            case NORMAL -> submitter.submit(0);
            case DOUBLE_SUBMIT, DOUBLE_CLICK -> {
                Future<?> twin = helpers.submit(() -> {
                    Thread.sleep(secondSubmitDelayMs);
                    submitter.submit(1);
                    return null;
                });
                submitter.submit(0);
                twin.get();
            }
            case CONCURRENT -> {
                java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
                Future<?> twin = helpers.submit(() -> {
                    together.await(10, TimeUnit.SECONDS);
                    submitter.submit(1);
                    return null;
                });
                together.await(10, TimeUnit.SECONDS);
                submitter.submit(0);
                twin.get();
            }
        }
    }

    /**
     * The wallets' openings (their first credits, all at once), then the mixed credits and debits,
     * which a few workers take in order, so debits of one wallet race. The i-th of n waits until
     * the payments are i/n of the way: the wallets meet the fault windows and kills, which follow
     * the payments' progress, all through the workload.
     */
    private void runWallets(List<WalletRecord> records, WalletClient client, java.util.function.DoubleSupplier progress,
            long hardDeadline) throws Exception {
        int workers = Math.max(2, options.clients() / 2);
        ExecutorService pool = Executors.newFixedThreadPool(workers, daemon("wallet"));
        ExecutorService helpers = Executors.newCachedThreadPool(daemon("wallet-twin"));
        try {
            List<Future<?>> openings = new ArrayList<>();
            for (WalletRecord r : records.stream().filter(r -> r.plan.opening()).toList()) {
                openings.add(pool.submit(() -> {
                    client.submit(r, 0, hardDeadline);
                    return null;
                }));
            }
            for (Future<?> f : openings) {
                f.get();
            }
            AtomicInteger next = new AtomicInteger();
            List<WalletRecord> mixed = records.stream().filter(r -> !r.plan.opening()).toList();
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                running.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < mixed.size() && System.nanoTime() < hardDeadline;
                            i = next.getAndIncrement()) {
                        WalletRecord r = mixed.get(i);
                        while (progress.getAsDouble() < i / (double) mixed.size() && System.nanoTime() < hardDeadline) {
                            Thread.sleep(50);
                        }
                        submitAs(r.plan.behaviour(), r.plan.secondSubmitDelayMs(),
                                s -> client.submit(r, s, hardDeadline), helpers);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
            helpers.shutdownNow();
        }
    }

    /**
     * Faults and crashes are off: every submitter still without a final answer asks again under its
     * key, until each has one or the settle timeout. A shopper's abandoned keys stay abandoned.
     */
    private void settleWallets(List<WalletRecord> records, WalletClient client, Recorder recorder)
            throws Exception {
        long deadline = System.nanoTime() + options.settleTimeout().toNanos();
        List<java.util.concurrent.Callable<Void>> asks = new ArrayList<>();
        for (WalletRecord r : records) {
            for (int s : r.unanswered()) {
                asks.add(() -> {
                    client.submit(r, s, deadline);
                    return null;
                });
            }
        }
        askAll("wallet-settle", asks);
        recorder.event("wallets settled: " + asks.size() + " operation(s) asked again");
    }

    /**
     * Faults and crashes are off: every refund request still without a final answer is asked again
     * under its key, and every pending one polled, until each is final or the settle timeout.
     */
    private void settleRefunds(List<RefundRecord> records, RefundClient client, Recorder recorder)
            throws Exception {
        long deadline = System.nanoTime() + options.settleTimeout().toNanos();
        List<java.util.concurrent.Callable<Void>> asks = new ArrayList<>();
        for (RefundRecord r : records.stream().filter(r -> r.paymentId != null).toList()) {
            List<RefundRecord.Answer> last = r.lastAnswers();
            for (int s = 0; s < last.size(); s++) {
                RefundRecord.Answer a = last.get(s);
                int submitter = s;
                if (a != null && a.pending()) {
                    asks.add(() -> {
                        client.poll(r, submitter, deadline);
                        return null;
                    });
                } else if (a == null || !a.settled()) {
                    asks.add(() -> {
                        client.submit(r, submitter, deadline, deadline);
                        return null;
                    });
                }
            }
        }
        askAll("refund-settle", asks);
        recorder.event("refunds settled: " + asks.size() + " request(s) asked again or polled");
    }

    /** Runs the settle phase's asks on as many threads as the drill has clients, and waits for them all. */
    private void askAll(String name, List<java.util.concurrent.Callable<Void>> asks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(options.clients(), daemon(name));
        try {
            for (Future<Void> f : pool.invokeAll(asks)) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Waits for every task; one that failed is printed (what it left undone, the verdict counts). */
    private void awaitAll(List<Future<?>> tasks) throws InterruptedException {
        for (Future<?> f : tasks) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                e.getCause().printStackTrace(out);
            }
        }
    }

    /** The table once settled, and the payments that wait for their customer (Stripe mode). */
    private record Settled(Oracle.Snapshot table, Set<String> awaitingCustomer) {
    }

    /**
     * Faults and crashes are off: clients poll what is pending (a client without any answer retries
     * its key), until every payment is terminal for its clients and in the table and no lease is
     * live — or the settle timeout. A payment that waits for its customer (who abandoned 3-D
     * Secure) counts as settled: pending is the truth about it.
     */
    private Settled settle(Oracle oracle, GoodClient client, List<Recorder.PaymentRecord> records,
            Recorder recorder) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + options.settleTimeout().toNanos();
        ExecutorService pollers = Executors.newFixedThreadPool(options.clients(), daemon("settle"));
        Set<String> awaiting = Set.of();
        try {
            while (true) {
                List<Future<?>> work = new ArrayList<>();
                for (Recorder.PaymentRecord r : records) {
                    List<Recorder.Answer> last = r.lastAnswers();
                    for (int s = 0; s < last.size(); s++) {
                        Recorder.Answer a = last.get(s);
                        if (a != null && (a.terminal() || a.paymentId() != null && awaiting.contains(a.paymentId()))) {
                            continue;
                        }
                        int submitter = s;
                        long until = Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(3));
                        work.add(pollers.submit(() -> {
                            if (a != null && "pending".equals(a.paymentStatus()) && a.paymentId() != null) {
                                client.poll(r, submitter, a, until);
                            } else {
                                client.submit(r, submitter, until, until);
                            }
                            return null;
                        }));
                    }
                }
                for (Future<?> f : work) {
                    try {
                        f.get();
                    } catch (java.util.concurrent.ExecutionException e) {
                        // counted by the verdict
                    }
                }
                Oracle.Snapshot snapshot = oracle.scan();
                awaiting = options.stripe() ? oracle.awaitingCustomer(snapshot) : Set.of();
                Set<String> waiting = awaiting;
                boolean clientsDone = records.stream().allMatch(r -> r.settledForClient(waiting));
                if ((clientsDone && snapshot.nonTerminal(awaiting) == 0
                        && snapshot.liveLeasesWithoutOutcome(System.currentTimeMillis(), awaiting) == 0)
                        || System.nanoTime() > deadline) {
                    recorder.event(clientsDone ? "settled" : "settle timeout");
                    return new Settled(snapshot, awaiting);
                }
                Thread.sleep(1000);
            }
        } finally {
            pollers.shutdownNow();
        }
    }

    private void naive(HttpClient http, String simUrl, List<Workload.Plan> plans, Measurements m)
            throws Exception {
        http.send(HttpRequest.newBuilder(URI.create(simUrl + "/_sim/reset")).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
        // Its charges still send webhooks; the webhook function answers them as unknown payments.
        Recorder recorder = new Recorder();
        NaiveClient naive = new NaiveClient(http, simUrl, recorder);
        AtomicInteger started = new AtomicInteger();
        List<Recorder.PaymentRecord> records = plans.stream().map(Recorder.PaymentRecord::new).toList();
        FaultSchedule faults = new FaultSchedule(http, simUrl, recorder, FaultSchedule.provider(options.profile(),
                options.seed(), options.maxWorkload(), options.outage(), options.slowAccount()), () -> started.get() / (double) options.payments());
        faults.start();
        long hardDeadline = System.nanoTime() + options.maxWorkload().toNanos();
        runWorkload(records, started, hardDeadline, (r, s) -> naive.submit(r.plan, s), r -> { }, "naive");
        m.naiveDurationMs = recorder.nowMs();
        faults.allOff();
        List<Oracle.LedgerCharge> ledger = Oracle.ledger(http, simUrl);
        int[] doubles = NaiveClient.doubleCharges(ledger);
        m.naiveDoubleCharges = doubles[0];
        m.naiveExtraCharges = doubles[1];
        m.naiveResults = List.copyOf(naive.results);
        m.naiveRan = true;
    }

    /** The charge function answers (a 404 for an unknown id) from every sandbox, several times over. */
    private static void awaitReady(HttpClient http, String api, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        int consecutive = 0;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + "/payments/pay_warmup"))
                        .timeout(Duration.ofSeconds(30)).header("X-Tenant-Id", "merchant-a").GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                consecutive = r.statusCode() == 404 ? consecutive + 1 : 0;
            } catch (IOException e) {
                consecutive = 0;
            }
            if (consecutive >= 6) {
                return;
            }
            Thread.sleep(consecutive > 0 ? 50 : 500);
        }
        throw new IOException("the local run did not answer within " + within.toSeconds() + " s");
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "drill-" + name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

}
