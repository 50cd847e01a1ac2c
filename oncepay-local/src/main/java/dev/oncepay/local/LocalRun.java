package dev.oncepay.local;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.sim.SimulatorOptions;
import dev.oncepay.sim.StripeCustomerEndpoint;
import dev.oncepay.sim.StripeMode;
import dev.oncepay.sim.WebhookTarget;
import dev.oncepay.sim.merchant.MerchantEndpoint;
import dev.oncepay.testkit.FreePorts;
import dev.oncepay.testkit.StoreFaultProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * oncepay on one machine, the way it runs on AWS: dynalite for DynamoDB behind a store fault proxy
 * (healthy unless told otherwise over {@code /_store/faults}), the PSP simulator, ElasticMQ for
 * the charge queues and the merchant event queue, each function's packaged Lambda handler in
 * sandbox JVMs under AWS's runtime interface client, a local API Gateway (HTTP API, payload 2.0) in
 * front of them, an EventBridge-like schedule for reconcile, SQS event-source mappings for
 * charge-worker and event-delivery, and the merchant endpoint every tenant's events are delivered to.
 * {@code ./run-local.sh} builds the package and starts this; Ctrl-C or SIGTERM stops everything it
 * started.
 */
public final class LocalRun implements AutoCloseable {
    /** Printed once every sandbox has initialised; tests wait for it. */
    public static final String READY = "local run ready";
    /** The JVM variant's memory in {@code infra/} (informational here: each sandbox gets --heap). */
    private static final long MEMORY_MB = 1024;

    private final LocalRunOptions options;
    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(4, r -> {
        Thread t = new Thread(r, "local-run-timer");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, LambdaFunction> functions = new LinkedHashMap<>();
    private final List<SqsEventSourceMapping> mappings = new ArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final long startedNanos = System.nanoTime();
    private LocalDynamo dynamo;
    private StoreFaultProxy store;
    private PspSimulator simulator;
    /** Where every tenant's events are delivered, or null without events. */
    private MerchantEndpoint merchant;
    private LocalQueues queues;
    private ApiGateway gateway;
    private EventBridgeSchedule schedule;
    /** The function a dev-mode JVM serves (live coding), or null. */
    private DevModeFunction devMode;
    private volatile boolean closed;

    private LocalRun(LocalRunOptions options) {
        this.options = options;
    }

    public static void main(String[] args) {
        // The gateway, the Runtime APIs and the store proxy are JDK HTTP servers, which leave Nagle's
        // algorithm on: every hop of a request then waits on the peer's delayed ACK (~2-5 ms per
        // DynamoDB request through the proxy, measured), time no Lambda or DynamoDB endpoint adds.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        LocalRunOptions options;
        try {
            options = LocalRunOptions.parse(List.of(args), System.getenv());
        } catch (LocalRunOptions.UsageException e) {
            if (e.getMessage() != null) {
                System.err.println(e.getMessage());
            }
            System.err.println(LocalRunOptions.usage());
            System.exit(e.getMessage() == null ? 0 : 2);
            return;
        }
        LocalRun run = new LocalRun(options);
        // Registered first: a Ctrl-C during start-up stops whatever has started so far.
        Runtime.getRuntime().addShutdownHook(new Thread(run::close, "local-run-shutdown"));
        try {
            run.startAll();
        } catch (Exception e) {
            System.err.println("The local run could not start: " + e.getMessage());
            run.close();
            System.exit(1);
        }
        run.awaitStopped();
    }

    private void startAll() throws IOException {
        requireFreePorts();
        // ElasticMQ takes seconds to start (its actor system): meanwhile the rest starts.
        CompletableFuture<Void> queuesStarted = CompletableFuture.runAsync(() -> {
            LocalQueues q = LocalQueues.start(options.queuePort(), LocalProviders.accounts(options), options.queueVisibility(),
                    options.events() ? options.eventVisibility() : null);
            register(() -> queues = q, q);
        }, timers);
        Path workDir = options.workDir().toAbsolutePath();
        Files.createDirectories(workDir);
        Path taskRoot = TaskRoot.prepare(options.app(), workDir);
        SandboxCommand command = new SandboxCommand(taskRoot, workDir, options.heap(), SandboxCommand.HANDLER);

        int dynalitePort = options.dynalitePort() != 0 ? options.dynalitePort()
                : FreePorts.next(options.apiPort(), options.simPort(), options.dynamoPort(), options.queuePort(),
                        options.merchantPort());
        LocalDynamo d = LocalDynamo.start(projectRoot(), dynalitePort, options.dynamoPath());
        register(() -> dynamo = d, d);
        d.createTable(options.table());
        // The functions' store is the fault proxy, so store faults can be injected into a running system.
        StoreFaultProxy proxy = StoreFaultProxy.start(d.endpoint(), options.dynamoPort(), options.storeSeed());
        register(() -> store = proxy, proxy);

        String webhooks = "http://127.0.0.1:" + options.apiPort() + "/webhooks/";
        PspSimulator sim = PspSimulator.start(SimulatorOptions.onPort(options.simPort()).withSeed(options.simSeed()));
        register(() -> simulator = sim, sim);
        // Both APIs send their events, each to its provider's endpoint, signed with its own secret.
        sim.setWebhookTarget(URI.create(webhooks + WebhookTarget.DEFAULT_PROVIDER_ID), options.webhookSecret());
        sim.stripe().setWebhookTarget(URI.create(webhooks + StripeMode.PROVIDER_ID), options.stripeWebhookSecret());
        // The second Stripe account's PaymentIntents (made with its API key) are signed with its own secret.
        sim.stripe().setAccountWebhookSecret(LocalProviders.apiKey(LocalProviders.SECOND_STRIPE_ACCOUNT, options),
                LocalProviders.webhookSecret(LocalProviders.SECOND_STRIPE_ACCOUNT, options));
        if (options.events()) {
            MerchantEndpoint m = MerchantEndpoint.start(options.merchantPort(), LocalEvents.merchantSecrets(options),
                    options.simSeed(), java.time.Clock.systemUTC());
            register(() -> merchant = m, m);
        }
        try {
            queuesStarted.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }

        Map<String, Map<String, String>> environments = new LinkedHashMap<>();
        LocalRunOptions.FUNCTIONS.forEach(name -> environments.put(name, functionEnvironment(name)));
        if (options.devPort() != 0) {
            String charge = DeploymentSettings.FUNCTION_CHARGE;
            devMode = new DevModeFunction(charge, options.devPort(), options.timeout(charge));
            DevModeFunction.writeEnvironment(options.devEnvironment(), devModeEnvironment(environments.get(charge)));
        }
        if (options.cds() == LocalRunOptions.Cds.AUTO) {
            Map<String, Map<String, String>> running = new LinkedHashMap<>(environments);
            running.keySet().removeIf(name -> options.sandboxCount(name) == 0);
            command = command.withArchives(ClassDataArchive.prepare(command, taskRoot, workDir, running, MEMORY_MB));
        }
        for (String name : LocalRunOptions.FUNCTIONS) {
            if (devMode != null && devMode.name.equals(name)) {
                continue;
            }
            LambdaFunction function = new LambdaFunction(name, options.timeout(name), MEMORY_MB, timers);
            Map<String, String> env = environments.get(name);
            for (int slot = 1; slot <= options.sandboxCount(name); slot++) {
                function.add(new Sandbox(function, slot, command, env));
            }
            register(() -> functions.put(name, function), function);
        }
        functions().forEach(f -> f.sandboxes().forEach(Sandbox::start));
        String worker = DeploymentSettings.FUNCTION_CHARGE_WORKER;
        if (options.sandboxCount(worker) > 0) {
            for (LocalQueues.Queue queue : queues.queues()) {
                SqsEventSourceMapping m = new SqsEventSourceMapping(queues.endpoint(), queue, worker, options.queueBatchSize(),
                        options.queueConcurrency(), event -> invoke(worker, event));
                register(() -> mappings.add(m), m);
            }
        }
        String delivery = DeploymentSettings.FUNCTION_EVENT_DELIVERY;
        if (queues.events() != null && options.sandboxCount(delivery) > 0) {
            SqsEventSourceMapping m = new SqsEventSourceMapping(queues.endpoint(), queues.events(), delivery,
                    DeploymentSettings.EVENT_QUEUE_BATCH_SIZE, options.eventConcurrency(), event -> invoke(delivery, event));
            register(() -> mappings.add(m), m);
        }

        ApiGateway g = new ApiGateway(options.apiPort(), HttpApiV2.oncepayRoutes(), this::submit,
                options::integrationTimeout, this::functions);
        register(() -> gateway = g, g);
        String reconcile = DeploymentSettings.FUNCTION_RECONCILE;
        if (!options.reconcileEvery().isZero() && options.sandboxCount(reconcile) > 0) {
            EventBridgeSchedule s = new EventBridgeSchedule(reconcile, options.reconcileEvery(), timers,
                    event -> invoke(reconcile, event));
            register(() -> schedule = s, s);
        }
        banner(taskRoot);
        timers.execute(this::announceWhenReady);
        if (options.parentPid() > 0) {
            timers.scheduleWithFixedDelay(this::exitWithParent, 1, 1, TimeUnit.SECONDS);
        }
    }

    /** The process that started this run is gone (killed outright): stop, rather than linger. */
    private void exitWithParent() {
        if (ProcessHandle.of(options.parentPid()).map(ProcessHandle::isAlive).orElse(false)) {
            return;
        }
        Log.warn("local-run", "process " + options.parentPid() + " that started this run is gone");
        new Thread(() -> System.exit(1), "local-run-exit").start();
    }

    /**
     * Keeps a started component so {@link #close()} stops it, or stops it at once when the run is
     * already closing (a Ctrl-C during start-up).
     */
    private void register(Runnable keep, AutoCloseable component) {
        synchronized (this) {
            if (!closed) {
                keep.run();
                return;
            }
        }
        try {
            component.close();
        } catch (Exception e) {
            // stopping anyway
        }
        throw new IllegalStateException("stopped during start-up");
    }

    private synchronized List<LambdaFunction> functions() {
        return List.copyOf(functions.values());
    }

    /** Invokes {@code function} like Lambda's Invoke API (the schedule's way). */
    CompletableFuture<InvocationResult> invoke(String function, byte[] event) {
        return submit(function, event).result();
    }

    /** Starts an invocation of {@code function} like Lambda's Invoke API (the gateway's way). */
    Invocation submit(String function, byte[] event) {
        LambdaFunction f;
        synchronized (this) {
            f = functions.get(function);
        }
        String trace = HttpApiV2.traceHeader(java.time.Instant.now());
        if (f == null && devMode != null && devMode.name.equals(function)) {
            return devMode.submit(event, trace);
        }
        if (f == null) {
            return Invocation.failed(event, trace, "ResourceNotFoundException", "no function " + function);
        }
        try {
            String fromEvent = new com.fasterxml.jackson.databind.ObjectMapper().readTree(event)
                    .path("headers").path("x-amzn-trace-id").asText(null);
            if (fromEvent != null) {
                trace = fromEvent;
            }
        } catch (IOException notJson) {
            // keep the generated trace id
        }
        return f.submit(event, trace);
    }

    /**
     * The environment of each function: what {@code infra/} gives the deployed function, with
     * local values, plus the local-only parts (the DynamoDB endpoint, the webhook secret that
     * production reads from Secrets Manager, the tenant header).
     */
    private Map<String, String> functionEnvironment(String function) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(DeploymentSettings.ENV_FUNQY_EXPORT, function);
        env.put(DeploymentSettings.ENV_TABLE, options.table());
        env.put(DeploymentSettings.ENV_TENANT_CLAIM, DeploymentSettings.DEFAULT_TENANT_CLAIM);
        env.put(DeploymentSettings.ENV_AWS_RETRY_MODE, DeploymentSettings.AWS_RETRY_MODE);
        env.put(DeploymentSettings.ENV_AWS_MAX_ATTEMPTS, Integer.toString(DeploymentSettings.AWS_MAX_ATTEMPTS));
        // Local only. No ONCEPAY_SECRET_ARN: the simulator's keys and webhook secrets are public anyway.
        env.putAll(LocalProviders.environment(function, options, providerUrl(), queues.urls()));
        env.putAll(LocalEvents.environment(function, options, queues.events() == null ? null : queues.events().url()));
        env.put(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT,
                Integer.toString(DeploymentSettings.chargeMaxInFlight(options.sandboxCount(DeploymentSettings.FUNCTION_CHARGE),
                        1 + LocalProviders.otherAccounts(options).size())));
        env.put("QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE", store.endpoint());
        env.put(DeploymentSettings.ENV_QUEUE_ENDPOINT_OVERRIDE, queues.endpoint());
        // Each function signs as itself (as each has its own role on AWS): the store proxy's
        // /_store/stats counts every function's requests apart.
        env.put("AWS_ACCESS_KEY_ID", function);
        // Lets a direct invocation carry the tenant in this header (the gateway sets the claim itself).
        env.put("ONCEPAY_TENANT_TRUSTED_HEADER", ApiGateway.TENANT_HEADER);
        // Readable lines on the terminal (and for the drill's log readers); QUARKUS_LOG_CONSOLE_JSON_ENABLED=true
        // ./run-local.sh shows the JSON lines Lambda writes.
        env.put("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false");
        // Stands in for the operator API's IAM authorization, as the tenant header for the JWT authorizer.
        env.put("ONCEPAY_OPERATOR_TRUSTED_HEADER", ApiGateway.OPERATOR_HEADER);
        // The developer's own overrides (e.g. QUARKUS_LOG_LEVEL=DEBUG ./run-local.sh), then --env.
        System.getenv().forEach((k, v) -> {
            if ((k.startsWith("ONCEPAY_") && !k.startsWith("ONCEPAY_LOCAL_")) || k.startsWith("QUARKUS_")) {
                env.put(k, v);
            }
        });
        env.putAll(options.env());
        return env;
    }

    /**
     * The dev-mode JVM's environment: the function's, plus what Lambda would set and a sandbox gets
     * from {@link SandboxCommand}, but no {@code AWS_LAMBDA_RUNTIME_API}: in dev mode the function
     * polls Quarkus' mock event server, whose poll loop does the live reload.
     */
    private static Map<String, String> devModeEnvironment(Map<String, String> functionEnv) {
        Map<String, String> env = new LinkedHashMap<>(functionEnv);
        String function = functionEnv.get(DeploymentSettings.ENV_FUNQY_EXPORT);
        env.put("AWS_LAMBDA_FUNCTION_NAME", function);
        env.put("AWS_REGION", SandboxCommand.REGION);
        env.put("AWS_DEFAULT_REGION", SandboxCommand.REGION);
        env.put("AWS_SECRET_ACCESS_KEY", "local");
        return env;
    }

    private String providerUrl() {
        return options.providerUrl() != null ? options.providerUrl() : "http://127.0.0.1:" + options.simPort();
    }

    private void banner(Path taskRoot) {
        String api = "http://127.0.0.1:" + gateway.port();
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("oncepay local run — everything below stops on Ctrl-C (or SIGTERM to this process, pid "
                + ProcessHandle.current().pid() + ")");
        lines.add(String.format("  %-26s %s   POST /payments, GET /payments/{id} -> charge; POST /webhooks/{provider} -> webhook",
                "API Gateway (HTTP API v2)", api));
        lines.add(String.format("  %-26s %s   /_sim/faults /_sim/ledger /_sim/reset; webhooks -> %s/webhooks/sim"
                + " and /webhooks/stripe", "PSP simulator (sim, stripe)", simulator.baseUrl(), api));
        lines.add(String.format("  %-26s %s, reached at %s", "provider accounts", LocalProviders.describe(options),
                providerUrl()));
        if (!options.unguardedTenants().isEmpty()) {
            lines.add(String.format("  %-26s off for %s", "order guard", String.join(", ", options.unguardedTenants())));
        }
        if (!options.respondAsyncTenants().isEmpty()) {
            lines.add(String.format("  %-26s by default for %s", "respond-async", String.join(", ",
                    options.respondAsyncTenants())));
        }
        lines.add(String.format("  %-26s %s   table %s; faults: /_store/faults /_store/reset (none now)",
                "DynamoDB (fault proxy)", store.endpoint(), options.table()));
        lines.add(String.format("  %-26s %s   behind the proxy (%s), pid %d", "  dynalite", dynamo.endpoint(),
                options.dynamoPath() == null ? "in memory" : "data in " + options.dynamoPath(), dynamo.pid()));
        lines.add(String.format("  %-26s %s   %s, in memory; each with a -dlq after %d receives, visibility %d s",
                "SQS (ElasticMQ)", queues.endpoint(), queues.queues().stream().map(LocalQueues.Queue::name)
                        .collect(Collectors.joining(", ")), DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES,
                options.queueVisibility().toSeconds()));
        if (queues.events() != null) {
            lines.add(String.format("  %-26s %s, with a -dlq after %d receives, visibility %d s", "", queues.events().name(),
                    DeploymentSettings.EVENT_QUEUE_MAX_RECEIVES, options.eventVisibility().toSeconds()));
        }
        if (merchant != null) {
            lines.add(String.format("  %-26s %s/merchant/<tenant>   endpoint '%s' of %s, signed with '%s'",
                    "merchant endpoint (events)", merchant.baseUrl(), LocalRunOptions.MERCHANT_ENDPOINT_ID,
                    String.join(", ", options.merchantTenants()), options.merchantSecret()));
        } else {
            lines.add(String.format("  %-26s off (--no-events): no event queue, no event-delivery", "merchant events"));
        }
        for (LambdaFunction f : functions()) {
            String pids = f.sandboxes().stream().map(Sandbox::process).filter(p -> p != null)
                    .map(p -> Long.toString(p.pid())).collect(Collectors.joining(", "));
            String extra = switch (f.name) {
                case DeploymentSettings.FUNCTION_RECONCILE -> schedule == null ? ", no schedule"
                        : ", EventBridge rate(" + options.reconcileEvery().toSeconds() + " seconds)";
                case DeploymentSettings.FUNCTION_CHARGE_WORKER -> ", SQS event-source mappings: batch "
                        + options.queueBatchSize() + ", maximum concurrency " + options.queueConcurrency() + " per queue";
                case DeploymentSettings.FUNCTION_EVENT_DELIVERY -> ", SQS event-source mapping: batch "
                        + DeploymentSettings.EVENT_QUEUE_BATCH_SIZE + ", maximum concurrency " + options.eventConcurrency();
                default -> "";
            };
            lines.add(String.format("  %-26s %d sandbox(es), timeout %d s%s%s", "λ " + f.name, f.sandboxes().size(),
                    f.timeout.toSeconds(), extra, pids.isEmpty() ? "" : ", pids " + pids));
        }
        if (devMode != null) {
            lines.add(String.format("  %-26s live coding in the dev-mode JVM (./mvnw quarkus:dev), its Lambda mock event"
                    + " server on :%d; environment in %s", "λ " + devMode.name, devMode.port,
                    options.devEnvironment().toAbsolutePath()));
        }
        lines.add("  package: " + taskRoot + " (handler " + SandboxCommand.HANDLER + ")");
        lines.add("");
        lines.add("WARNING: locally the X-Tenant-Id header stands in for the JWT authorizer (it becomes the");
        lines.add("         tenant_id claim, no token is checked). Never do this in production.");
        lines.add("");
        lines.add("Try (the first request per sandbox pays its cold start):");
        lines.add("  curl -i -X POST " + api + "/payments -H 'Idempotency-Key: k1' -H 'X-Tenant-Id: merchant-a' \\");
        boolean stripe = options.provider().equals(StripeMode.PROVIDER_ID);
        lines.add("       -H 'Content-Type: application/json' -d '{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_1\""
                + (stripe ? ",\"paymentMethod\":\"pm_card_visa\"" : "") + "}'");
        if (stripe) {
            lines.add("  (pm_card_chargeDeclined: 402; pm_card_authenticationRequired: 202 until the customer authenticates:");
            lines.add("   curl -X POST " + simulator.baseUrl() + StripeCustomerEndpoint.PATH
                    + " -d '{\"reference\":\"<payment id>\",\"approved\":true}')");
        }
        lines.add("  (the same again replays it: Idempotent-Replayed: true)   curl -i " + api
                + "/payments/<id> -H 'X-Tenant-Id: merchant-a'");
        lines.add("  (with -H 'Prefer: respond-async' and a new key: 202 at once; charge-worker charges it from the queue)");
        lines.add("  curl -X POST " + simulator.baseUrl() + "/_sim/faults -d '{\"commitThenTimeoutRate\":1}'"
                + "   (then a new key: 202 pending, settled later by webhook or reconcile)");
        lines.add("  curl -X POST " + store.endpoint() + "/_store/faults -d '{\"throttleRate\":0.2}'"
                + "   (the store throttles; '{\"outage\":true}' stops it, /_store/reset heals it)");
        if (merchant != null) {
            lines.add("  curl -s " + merchant.baseUrl() + "/_merchant/received   (what the merchant received: each delivery,"
                    + " the state it applied per payment, counts)");
            lines.add("  curl -X POST " + merchant.baseUrl() + "/_merchant/faults -d '{\"failRate\":0.5}'"
                    + "   (the merchant fails half the deliveries: retried with backoff; '{\"dark\":true}' answers 503 to all)");
        }
        lines.add("  kill <a sandbox pid>   (what it was running fails with 502; a new sandbox replaces it, as on Lambda)");
        lines.add("  curl " + api + "/_local/sandboxes   (each sandbox: pid, state, init and first invocation ms)");
        lines.add("");
        Log.plain(String.join("\n", lines));
    }

    private void announceWhenReady() {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (!closed && System.nanoTime() < deadline) {
            List<LambdaFunction> all = functions();
            if (all.stream().allMatch(LambdaFunction::settled)) {
                Log.info("local-run", String.format(Locale.ROOT, "%s in %.1f s: %s; API on http://127.0.0.1:%d",
                        READY, (System.nanoTime() - startedNanos) / 1e9,
                        all.stream().map(LambdaFunction::readiness).collect(Collectors.joining(", "))
                                + (devMode == null ? "" : ", " + devMode.label() + " on :" + devMode.port),
                        gateway.port()));
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void requireFreePorts() throws IOException {
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("--api-port", options.apiPort());
        ports.put("--sim-port", options.simPort());
        ports.put("--dynamo-port", options.dynamoPort());
        ports.put("--queue-port", options.queuePort());
        if (options.events()) {
            ports.put("--merchant-port", options.merchantPort());
        }
        if (options.dynalitePort() != 0) {
            ports.put("--dynalite-port", options.dynalitePort());
        }
        if (options.devPort() != 0) {
            // Checked here too: the dev-mode JVM starts after this run and binds it then.
            ports.put("--dev-port", options.devPort());
        }
        if (ports.values().stream().distinct().count() < ports.size()) {
            throw new IOException("the ports must differ: " + ports);
        }
        for (Map.Entry<String, Integer> p : ports.entrySet()) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p.getValue()));
            } catch (IOException e) {
                throw new IOException("port " + p.getValue() + " is in use (another local run?); choose another with "
                        + p.getKey());
            }
        }
    }

    public static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("package.json"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("run from the oncepay checkout (no package.json above "
                    + Path.of("").toAbsolutePath() + ")");
        }
        return dir;
    }

    private void awaitStopped() {
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops everything this run started, in reverse order; safe to call more than once. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        Log.info("local-run", "stopping…");
        if (schedule != null) {
            schedule.close();
        }
        List<SqsEventSourceMapping> stopping;
        synchronized (this) {
            stopping = List.copyOf(mappings);
        }
        stopping.parallelStream().forEach(SqsEventSourceMapping::close);
        if (gateway != null) {
            gateway.close();
        }
        functions().parallelStream().forEach(LambdaFunction::close);
        if (simulator != null) {
            simulator.close();
        }
        if (merchant != null) {
            merchant.close();
        }
        if (queues != null) {
            queues.close();
        }
        if (store != null) {
            store.close();
        }
        if (dynamo != null) {
            dynamo.close();
        }
        timers.shutdownNow();
        Log.info("local-run", "stopped");
        stopped.countDown();
    }
}
