package dev.oncepay.local;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.sim.StripeMode;
import dev.oncepay.sim.WebhookTarget;
import dev.oncepay.testkit.StoreFaultProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Everything the local run can be told, from flags and {@code ONCEPAY_LOCAL_*} environment
 * variables (flags win). {@link #usage()} lists them.
 *
 * @param app the deployable artifact: {@code function.zip} (unpacked like Lambda does) or an
 *        already unpacked task directory
 * @param workDir where the local run keeps its files (unpacked task root, dynalite data)
 * @param dynamoPort the store's endpoint as the functions see it: the store fault proxy in front of
 *        dynalite ({@code /_store/faults} steers its faults; healthy unless told otherwise)
 * @param dynalitePort dynalite itself, behind the proxy; 0 for any free port
 * @param queuePort ElasticMQ, the SQS-compatible server of the charge queues
 * @param sandboxes sandbox processes per function (like Lambda's concurrent execution environments);
 *        unless told, charge-worker's is the sum of the event-source mappings' maximum concurrency
 * @param timeouts each function's Lambda timeout
 * @param integrationTimeout how long the API gateway waits for any function, or null for each route's
 *        own (its function's timeout plus a second, at most 29 s, as {@code infra/} configures it)
 * @param reconcileEvery the EventBridge schedule's rate; {@link Duration#ZERO} turns it off
 * @param queueVisibility the charge queues' visibility timeout (whole seconds, at least charge-worker's
 *        timeout: Lambda refuses a mapping of a queue whose visibility timeout is shorter)
 * @param queueBatchSize messages per charge-worker invocation (the event-source mappings' batch size)
 * @param queueConcurrency each event-source mapping's maximum concurrency (one mapping per account's queue)
 * @param webhookSecret the secret the simulator signs its generic ({@code sim}) webhooks with
 * @param provider the provider of the functions' default account: {@code sim} (the simulator's
 *        generic API) or {@code stripe} (its Stripe mode, same simulator, same port)
 * @param tenantProviders tenants charged through another provider than the default, each with an
 *        account of its own (tenant → provider id, or {@code stripe2}: a second Stripe account)
 * @param unguardedTenants tenants whose orders charge does not guard: they may pay one order
 *        reference several times ({@code oncepay.orders.tenants.<tenant>.once-per-reference=false})
 * @param respondAsyncTenants tenants whose charges are queued as if each asked {@code Prefer: respond-async}
 *        ({@code oncepay.queue.tenants.<tenant>.respond-async=true})
 * @param providerUrl where the functions reach every provider account, or null for the simulator
 * @param stripeWebhookSecret the Stripe signing secret: the simulator signs its Stripe events with
 *        it, only the webhook function is given it
 * @param stripeApiKey the Stripe accounts' secret key, given to charge and reconcile only; a test
 *        key ({@code sk_test_…}, {@code rk_test_…}): the simulator takes any, a live key is refused
 * @param dynamoPath dynalite's LevelDB directory, or null for an in-memory store
 * @param env extra environment for every sandbox (like a Lambda function's environment)
 * @param cds whether sandboxes start from a per-function AppCDS archive ({@link ClassDataArchive})
 * @param parentPid stop when this process ends (run-local.sh, a test), or 0
 * @param devPort 0, or the port of a Quarkus dev-mode JVM's Lambda mock event server that serves
 *        {@code charge} instead of sandboxes ({@code ./run-local.sh --dev}, {@link DevModeFunction})
 * @param devEnvironment where the dev-mode JVM's environment is written (with {@code devPort})
 * @param events whether the functions relay merchant events: the event queue, event-delivery's
 *        sandboxes and mapping, and the merchant endpoint ({@code --no-events}: none of them)
 * @param merchantPort the merchant endpoint the events are delivered to (the simulator's {@code
 *        MerchantEndpoint}, in this JVM)
 * @param merchantSecret the signing secret of every tenant's endpoint: event-delivery signs with it,
 *        the merchant endpoint verifies with it
 * @param eventTenants tenants given an endpoint besides {@link #DEFAULT_EVENT_TENANTS} and the
 *        tenants other options name ({@link #merchantTenants()})
 * @param eventConcurrency the event queue's event-source mapping's maximum concurrency, and so
 *        event-delivery's sandboxes unless {@code --sandboxes} names them
 * @param eventVisibility the event queue's visibility timeout (whole seconds, at least event-delivery's timeout)
 */
public record LocalRunOptions(
        Path app,
        Path workDir,
        int apiPort,
        int simPort,
        int dynamoPort,
        int dynalitePort,
        int queuePort,
        Map<String, Integer> sandboxes,
        Map<String, Duration> timeouts,
        Duration integrationTimeout,
        Duration reconcileEvery,
        Duration queueVisibility,
        int queueBatchSize,
        int queueConcurrency,
        String table,
        String heap,
        String webhookSecret,
        String provider,
        Map<String, String> tenantProviders,
        Set<String> unguardedTenants,
        Set<String> respondAsyncTenants,
        String providerUrl,
        String stripeWebhookSecret,
        String stripeApiKey,
        long simSeed,
        long storeSeed,
        Path dynamoPath,
        Map<String, String> env,
        Cds cds,
        long parentPid,
        int devPort,
        Path devEnvironment,
        boolean events,
        int merchantPort,
        String merchantSecret,
        Set<String> eventTenants,
        int eventConcurrency,
        Duration eventVisibility) {

    /** Every function of a deployment, each with sandboxes of its own. */
    public static final List<String> FUNCTIONS = DeploymentSettings.FUNCTIONS;
    public static final int DEFAULT_API_PORT = 8080;
    public static final int DEFAULT_SIM_PORT = 8090;
    public static final int DEFAULT_DYNAMO_PORT = 8000;
    /** ElasticMQ's own default port. */
    public static final int DEFAULT_QUEUE_PORT = 9324;
    public static final int DEFAULT_MERCHANT_PORT = 9420;
    /** The endpoint id every local tenant's events go to. */
    public static final String MERCHANT_ENDPOINT_ID = "orders";
    public static final String DEFAULT_MERCHANT_SECRET = "local-merchant-secret";
    /** Tenants the examples and the drill use: each has an endpoint, whatever the other options. */
    public static final List<String> DEFAULT_EVENT_TENANTS = List.of("merchant-a", "merchant-b", "merchant-c");
    /**
     * Event-delivery sandboxes unless told: AWS's least maximum concurrency. A sandbox delivers a
     * batch's ten messages in parallel, so two deliver twenty at once, more than one machine's
     * payments produce; each more is a JVM.
     */
    static final int DEFAULT_EVENT_CONCURRENCY = 2;
    /** SQS's longest visibility timeout. */
    static final Duration MAX_QUEUE_VISIBILITY = Duration.ofHours(12);
    /** The fewest a mapping's maximum concurrency may be on AWS; the most, locally: each is a sandbox JVM. */
    static final int MIN_QUEUE_CONCURRENCY = 2;
    static final int MAX_QUEUE_CONCURRENCY = 16;
    /** The provider ids the simulator speaks: its generic REST API and its Stripe mode. */
    public static final List<String> PROVIDERS = List.of(WebhookTarget.DEFAULT_PROVIDER_ID, StripeMode.PROVIDER_ID);
    /** API Gateway HTTP API's largest integration timeout (as CDK enforces it). */
    public static final Duration MAX_INTEGRATION_TIMEOUT =
            Duration.ofSeconds(DeploymentSettings.HTTP_API_MAX_INTEGRATION_TIMEOUT_SECONDS);
    /** The Lambda timeouts the CDK app deploys the functions with. */
    static final Map<String, Duration> LAMBDA_TIMEOUTS = DeploymentSettings.FUNCTIONS.stream().collect(
            Collectors.toUnmodifiableMap(f -> f, f -> Duration.ofSeconds(DeploymentSettings.timeoutSeconds(f))));

    /** {@code --cds}: AppCDS archives for the sandboxes (trained and cached) or none. */
    public enum Cds {
        AUTO, OFF
    }

    public LocalRunOptions {
        sandboxes = Map.copyOf(sandboxes);
        timeouts = Map.copyOf(timeouts);
        env = Map.copyOf(env);
        tenantProviders = Map.copyOf(tenantProviders);
        unguardedTenants = Collections.unmodifiableSet(new TreeSet<>(unguardedTenants));
        respondAsyncTenants = Collections.unmodifiableSet(new TreeSet<>(respondAsyncTenants));
        eventTenants = Collections.unmodifiableSet(new TreeSet<>(eventTenants));
        for (String function : FUNCTIONS) {
            if (!sandboxes.containsKey(function) || !timeouts.containsKey(function)) {
                throw new IllegalArgumentException("no sandbox count or timeout for " + function);
            }
        }
    }

    public static LocalRunOptions defaults() {
        return new LocalRunOptions(
                Path.of("oncepay-functions/target/function.zip"),
                Path.of("target/local-run"),
                DEFAULT_API_PORT,
                DEFAULT_SIM_PORT,
                DEFAULT_DYNAMO_PORT,
                0,
                DEFAULT_QUEUE_PORT,
                // Like Lambda scaling out: concurrent payments really race in different processes; the
                // worker's as many as its one mapping may run at once.
                Map.of(DeploymentSettings.FUNCTION_CHARGE, 2, DeploymentSettings.FUNCTION_WEBHOOK, 1,
                        DeploymentSettings.FUNCTION_RECONCILE, 1,
                        DeploymentSettings.FUNCTION_CHARGE_WORKER, DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY,
                        DeploymentSettings.FUNCTION_EVENT_DELIVERY, DEFAULT_EVENT_CONCURRENCY),
                LAMBDA_TIMEOUTS,
                null,
                Duration.ofSeconds(60),
                Duration.ofSeconds(DeploymentSettings.CHARGE_QUEUE_VISIBILITY_TIMEOUT_SECONDS),
                DeploymentSettings.CHARGE_QUEUE_BATCH_SIZE,
                DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY,
                "oncepay-local",
                "256m",
                WebhookTarget.DEFAULT_SECRET,
                WebhookTarget.DEFAULT_PROVIDER_ID,
                Map.of(),
                Set.of(),
                Set.of(),
                null,
                StripeMode.DEFAULT_WEBHOOK_SECRET,
                "sk_test_oncepay_local",
                42,
                StoreFaultProxy.DEFAULT_SEED,
                null,
                Map.of(),
                Cds.AUTO,
                0,
                0,
                Path.of("target/local-run/dev-mode.env"),
                true,
                DEFAULT_MERCHANT_PORT,
                DEFAULT_MERCHANT_SECRET,
                Set.of(),
                DEFAULT_EVENT_CONCURRENCY,
                Duration.ofSeconds(DeploymentSettings.EVENT_QUEUE_VISIBILITY_TIMEOUT_SECONDS));
    }

    /** Parses environment variables first, then flags. */
    public static LocalRunOptions parse(List<String> args, Map<String, String> environment) {
        Builder b = new Builder(defaults());
        for (Map.Entry<String, String> e : environment.entrySet()) {
            String key = e.getKey();
            if (key.startsWith("ONCEPAY_LOCAL_")) {
                String flag = "--" + key.substring("ONCEPAY_LOCAL_".length()).toLowerCase(Locale.ROOT).replace('_', '-');
                if (flag.equals("--no-events")) {
                    b.events = List.of("", "0", "false", "no").contains(e.getValue().trim().toLowerCase(Locale.ROOT));
                } else if (!flag.equals("--env")) {
                    b.apply(flag, e.getValue(), key);
                }
            }
        }
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String flag = arg;
            String value;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                flag = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else if (arg.equals("--help") || arg.equals("-h")) {
                throw new UsageException(null);
            } else if (arg.equals("--no-events")) {
                b.events = false;
                continue;
            } else {
                if (i + 1 >= args.size()) {
                    throw new UsageException(arg + " needs a value");
                }
                value = args.get(++i);
            }
            b.apply(flag, value, flag);
        }
        return b.build();
    }

    public static String usage() {
        return String.join("\n",
                "Usage: ./run-local.sh [options]   (every option also as env ONCEPAY_LOCAL_<NAME>, e.g. ONCEPAY_LOCAL_API_PORT)",
                "  --api-port N             local API Gateway (default 8080)",
                "  --sim-port N             PSP simulator (default 8090)",
                "  --dynamo-port N          the store's endpoint: a fault proxy in front of dynalite (default 8000;",
                "                           POST /_store/faults, e.g. {\"throttleRate\":0.2}, /_store/reset)",
                "  --dynalite-port N        dynalite, the DynamoDB-compatible store, behind the proxy (default: a free port)",
                "  --queue-port N           ElasticMQ, the SQS-compatible server of the charge queues (default "
                        + DEFAULT_QUEUE_PORT + ")",
                "  --sandboxes LIST         sandboxes per function (default charge=2,webhook=1,reconcile=1, charge-worker",
                "                           the queues' maximum concurrency summed: " + DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY
                        + " per provider account, event-delivery",
                "                           --event-concurrency; charge-worker=0 or event-delivery=0: no mappings for it)",
                "  --timeout LIST           Lambda timeouts (default charge=28s,webhook=20s,reconcile=90s,charge-worker="
                        + DeploymentSettings.CHARGE_WORKER_TIMEOUT_SECONDS + "s,event-delivery="
                        + DeploymentSettings.EVENT_DELIVERY_TIMEOUT_SECONDS + "s, as infra/)",
                "  --integration-timeout D  how long the gateway waits for a function (default: its timeout + 1 s, at most 29 s)",
                "  --reconcile-every D      EventBridge schedule for reconcile (default 60s; 'off' disables)",
                "  --queue-visibility D     the charge queues' visibility timeout (default "
                        + DeploymentSettings.CHARGE_QUEUE_VISIBILITY_TIMEOUT_SECONDS + "s, as infra/; whole seconds, at",
                "                           least charge-worker's timeout, as Lambda requires: shorten --timeout charge-worker too)",
                "  --queue-batch-size N     messages per charge-worker invocation, 1-" + SqsEventSourceMapping.MAX_BATCH_SIZE
                        + " (default " + DeploymentSettings.CHARGE_QUEUE_BATCH_SIZE + ")",
                "  --queue-concurrency N    maximum concurrency of each queue's event-source mapping, " + MIN_QUEUE_CONCURRENCY
                        + "-" + MAX_QUEUE_CONCURRENCY + " (default " + DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY + ")",
                "  --no-events              relay no merchant events: no event queue, no event-delivery, no merchant endpoint",
                "  --merchant-port N        the merchant endpoint the events go to (default " + DEFAULT_MERCHANT_PORT
                        + "): each tenant's endpoint",
                "                           '" + MERCHANT_ENDPOINT_ID + "' is http://127.0.0.1:N/merchant/<tenant>; GET /_merchant/received,",
                "                           POST /_merchant/faults (e.g. {\"failRate\":0.5}), POST /_merchant/reset",
                "  --merchant-secret S      the endpoints' signing secret, given to event-delivery only (default "
                        + DEFAULT_MERCHANT_SECRET + ")",
                "  --event-tenant T         give tenant T an endpoint too (repeatable, or a list); "
                        + String.join(", ", DEFAULT_EVENT_TENANTS) + " and",
                "                           the tenants other options name have one",
                "  --event-concurrency N    maximum concurrency of the event queue's event-source mapping, and event-delivery's",
                "                           sandboxes, " + MIN_QUEUE_CONCURRENCY + "-" + MAX_QUEUE_CONCURRENCY + " (default "
                        + DEFAULT_EVENT_CONCURRENCY + "; " + DeploymentSettings.EVENT_QUEUE_MAX_CONCURRENCY + " in infra/)",
                "  --event-visibility D     the event queue's visibility timeout (default "
                        + DeploymentSettings.EVENT_QUEUE_VISIBILITY_TIMEOUT_SECONDS + "s, as infra/; at least event-delivery's"
                        + " timeout)",
                "  --table NAME             DynamoDB table (default oncepay-local)",
                "  --heap SIZE              -Xmx of each sandbox JVM (default 256m)",
                "  --provider P             the functions' default provider account: sim (the simulator's generic API,",
                "                           the default) or stripe (its Stripe mode: same simulator, same port; charges",
                "                           need a paymentMethod such as pm_card_visa)",
                "  --tenant-provider T=P    charge tenant T through provider P instead (an account of its own;",
                "                           repeatable, or a list: merchant-b=stripe,merchant-c=sim); P may be",
                "                           stripe2, a second Stripe account with its own API key and signing secret",
                "  --unguarded-tenant T     turn the order guard off for tenant T: it may pay one order reference several",
                "                           times, as instalments do (repeatable, or a list: merchant-x,merchant-y)",
                "  --respond-async T        queue tenant T's charges as if each asked Prefer: respond-async (repeatable, or a",
                "                           list)",
                "  --provider-url URL       where the functions reach every provider account (default: the simulator)",
                "  --webhook-secret S       secret the simulator signs sim webhooks with (default local-sim-secret)",
                "  --stripe-webhook-secret S  Stripe signing secret of the simulator's Stripe events, given to the webhook",
                "                           function only (default " + StripeMode.DEFAULT_WEBHOOK_SECRET + ")",
                "  --stripe-api-key K       Stripe secret key for charge and reconcile only; test keys only (default",
                "                           sk_test_oncepay_local; better as env ONCEPAY_LOCAL_STRIPE_API_KEY)",
                "  --sim-seed N             seed of the simulator's fault dice (default 42)",
                "  --store-seed N           seed of the store fault proxy's dice (default " + StoreFaultProxy.DEFAULT_SEED + ")",
                "  --dynamo-path DIR        keep the store on disk (LevelDB) instead of in memory",
                "  --env KEY=VALUE          extra environment for every function (repeatable)",
                "  --cds auto|off           auto (default): each function's sandboxes start from an AppCDS archive of",
                "                           its classes, trained once per package and JVM, cached in <work-dir>/cds/;",
                "                           off: plain JVM start",
                "  --app PATH               function.zip or an unpacked task root (default oncepay-functions/target/function.zip)",
                "  --work-dir DIR           local run's files (default target/local-run)",
                "  --parent-pid PID         stop when that process ends (run-local.sh passes its own pid)",
                "  --dev                    live coding (run-local.sh): charge runs in ./mvnw quarkus:dev, not in sandboxes;",
                "                           a saved change serves the next request ([r] in its console runs the tests)",
                "  --dev-port N             the dev-mode JVM's Lambda mock event server (default 8081), which the gateway",
                "                           invokes charge through",
                "  --debug-port N           the dev-mode JVM's debugger (JDWP) port (run-local.sh; default 5005)",
                "  --dev-env FILE           where the dev-mode JVM's environment is written (run-local.sh --dev sets it)",
                "Durations: 500ms, 10s, 2m, 1h (a bare number is seconds).");
    }

    /**
     * The tenants with an endpoint ({@value #MERCHANT_ENDPOINT_ID}) when events are on: {@link
     * #DEFAULT_EVENT_TENANTS}, every tenant another option names, and {@code --event-tenant}'s; each
     * a plain name ({@link DeploymentSettings#NAME_PATTERN}), as its endpoint's URL path ends with it.
     */
    public List<String> merchantTenants() {
        if (!events) {
            return List.of();
        }
        TreeSet<String> tenants = new TreeSet<>(DEFAULT_EVENT_TENANTS);
        tenants.addAll(tenantProviders.keySet());
        tenants.addAll(unguardedTenants);
        tenants.addAll(respondAsyncTenants);
        tenants.addAll(eventTenants);
        return tenants.stream().filter(t -> t.matches(DeploymentSettings.NAME_PATTERN)).toList();
    }

    public int sandboxCount(String function) {
        return sandboxes.get(function);
    }

    public Duration timeout(String function) {
        return timeouts.get(function);
    }

    /** How long the gateway waits for {@code function}: as {@code infra/} sets it, unless overridden. */
    public Duration integrationTimeout(String function) {
        if (integrationTimeout != null) {
            return integrationTimeout;
        }
        Duration oneMore = timeout(function).plusSeconds(1);
        return oneMore.compareTo(MAX_INTEGRATION_TIMEOUT) < 0 ? oneMore : MAX_INTEGRATION_TIMEOUT;
    }

    /** Thrown for --help and for invalid flags; the message (null for --help) goes before the usage. */
    public static final class UsageException extends IllegalArgumentException {
        public UsageException(String message) {
            super(message);
        }
    }

    /** {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, ISO-8601 {@code PT…}; a bare number is seconds. */
    public static Duration duration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt")) {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            char unit = t.charAt(t.length() - 1);
            if (Character.isDigit(unit)) {
                return Duration.ofSeconds(Long.parseLong(t));
            }
            long n = Long.parseLong(t.substring(0, t.length() - 1));
            return switch (unit) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> throw new UsageException("not a duration: " + text);
            };
        } catch (RuntimeException e) {
            if (e instanceof UsageException u) {
                throw u;
            }
            throw new UsageException("not a duration: " + text + " (use e.g. 500ms, 10s, 2m)");
        }
    }

    private static final class Builder {
        Path app;
        Path workDir;
        int apiPort;
        int simPort;
        int dynamoPort;
        int dynalitePort;
        int queuePort;
        final Map<String, Integer> sandboxes;
        /** Whether the flags named charge-worker's sandboxes; if not, its mappings' concurrency decides. */
        boolean workerSandboxesNamed;
        final Map<String, Duration> timeouts;
        Duration integrationTimeout;
        Duration reconcileEvery;
        Duration queueVisibility;
        int queueBatchSize;
        int queueConcurrency;
        String table;
        String heap;
        String webhookSecret;
        String provider;
        final Map<String, String> tenantProviders;
        final Set<String> unguardedTenants;
        final Set<String> respondAsyncTenants;
        String providerUrl;
        String stripeWebhookSecret;
        String stripeApiKey;
        long simSeed;
        long storeSeed;
        Path dynamoPath;
        final Map<String, String> env;
        Cds cds;
        long parentPid;
        int devPort;
        Path devEnvironment;
        boolean events;
        int merchantPort;
        String merchantSecret;
        final Set<String> eventTenants;
        int eventConcurrency;
        /** Whether the flags named event-delivery's sandboxes; if not, its mapping's concurrency decides. */
        boolean deliverySandboxesNamed;
        Duration eventVisibility;

        Builder(LocalRunOptions o) {
            app = o.app;
            workDir = o.workDir;
            apiPort = o.apiPort;
            simPort = o.simPort;
            dynamoPort = o.dynamoPort;
            dynalitePort = o.dynalitePort;
            queuePort = o.queuePort;
            sandboxes = new LinkedHashMap<>(o.sandboxes);
            timeouts = new LinkedHashMap<>(o.timeouts);
            integrationTimeout = o.integrationTimeout;
            reconcileEvery = o.reconcileEvery;
            queueVisibility = o.queueVisibility;
            queueBatchSize = o.queueBatchSize;
            queueConcurrency = o.queueConcurrency;
            table = o.table;
            heap = o.heap;
            webhookSecret = o.webhookSecret;
            provider = o.provider;
            tenantProviders = new LinkedHashMap<>(o.tenantProviders);
            unguardedTenants = new TreeSet<>(o.unguardedTenants);
            respondAsyncTenants = new TreeSet<>(o.respondAsyncTenants);
            providerUrl = o.providerUrl;
            stripeWebhookSecret = o.stripeWebhookSecret;
            stripeApiKey = o.stripeApiKey;
            simSeed = o.simSeed;
            storeSeed = o.storeSeed;
            dynamoPath = o.dynamoPath;
            env = new LinkedHashMap<>(o.env);
            cds = o.cds;
            parentPid = o.parentPid;
            devPort = o.devPort;
            devEnvironment = o.devEnvironment;
            events = o.events;
            merchantPort = o.merchantPort;
            merchantSecret = o.merchantSecret;
            eventTenants = new TreeSet<>(o.eventTenants);
            eventConcurrency = o.eventConcurrency;
            eventVisibility = o.eventVisibility;
        }

        void apply(String flag, String value, String source) {
            switch (flag) {
                case "--api-port" -> apiPort = port(value, source);
                case "--sim-port" -> simPort = port(value, source);
                case "--dynamo-port" -> dynamoPort = port(value, source);
                case "--dynalite-port" -> dynalitePort = value.trim().equals("0") ? 0 : port(value, source);
                case "--queue-port" -> queuePort = port(value, source);
                case "--sandboxes" -> perFunction(value, source).forEach((f, v) -> {
                    sandboxes.put(f, count(v, source));
                    workerSandboxesNamed |= f.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER);
                    deliverySandboxesNamed |= f.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY);
                });
                case "--timeout" -> perFunction(value, source).forEach((f, v) -> timeouts.put(f, positive(duration(v), source)));
                case "--integration-timeout" -> integrationTimeout = positive(duration(value), source);
                case "--reconcile-every" -> reconcileEvery = value.equalsIgnoreCase("off") ? Duration.ZERO
                        : positive(duration(value), source);
                case "--queue-visibility" -> queueVisibility = visibility(duration(value), source);
                case "--queue-batch-size" -> queueBatchSize = within(value, 1, SqsEventSourceMapping.MAX_BATCH_SIZE, source);
                case "--queue-concurrency" -> queueConcurrency = within(value, MIN_QUEUE_CONCURRENCY, MAX_QUEUE_CONCURRENCY,
                        source);
                case "--table" -> table = tableName(value, source);
                case "--heap" -> heap = value;
                case "--webhook-secret" -> webhookSecret = secret(value, source);
                case "--provider" -> provider = providerId(value, source);
                case "--tenant-provider" -> tenantProviders.putAll(tenantProviders(value, source));
                case "--unguarded-tenant" -> unguardedTenants.addAll(tenants(value, source));
                case "--respond-async" -> respondAsyncTenants.addAll(tenants(value, source));
                case "--provider-url" -> providerUrl = url(value, source);
                case "--stripe-webhook-secret" -> stripeWebhookSecret = secret(value, source);
                case "--stripe-api-key" -> stripeApiKey = stripeTestKey(value, source);
                case "--sim-seed" -> simSeed = longValue(value, source);
                case "--store-seed" -> storeSeed = longValue(value, source);
                case "--dynamo-path" -> dynamoPath = value.isBlank() ? null : Path.of(value);
                case "--env" -> {
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw new UsageException(source + " needs KEY=VALUE, got " + value);
                    }
                    env.put(value.substring(0, eq), value.substring(eq + 1));
                }
                case "--cds" -> cds = cds(value, source);
                case "--app" -> app = Path.of(value);
                case "--work-dir" -> workDir = Path.of(value);
                case "--parent-pid" -> parentPid = Long.parseLong(value.trim());
                case "--dev-port" -> devPort = port(value, source);
                case "--dev-env" -> devEnvironment = Path.of(value);
                case "--merchant-port" -> merchantPort = port(value, source);
                case "--merchant-secret" -> merchantSecret = secret(value, source);
                case "--event-tenant" -> eventTenants.addAll(tenants(value, source).stream().map(t -> endpointTenant(t, source))
                        .toList());
                case "--event-concurrency" -> eventConcurrency = within(value, MIN_QUEUE_CONCURRENCY, MAX_QUEUE_CONCURRENCY,
                        source);
                case "--event-visibility" -> eventVisibility = visibility(duration(value), source);
                default -> throw new UsageException("unknown option " + source);
            }
        }

        LocalRunOptions build() {
            if (integrationTimeout != null && integrationTimeout.compareTo(MAX_INTEGRATION_TIMEOUT) > 0) {
                System.out.println("note: API Gateway HTTP API allows at most " + MAX_INTEGRATION_TIMEOUT.toSeconds()
                        + " s of integration timeout; using " + integrationTimeout.toMillis() + " ms anyway (local only)");
            }
            if (devPort != 0) {
                // The dev-mode JVM is charge's one execution environment.
                sandboxes.put(DeploymentSettings.FUNCTION_CHARGE, 0);
            }
            if (!workerSandboxesNamed) {
                // As infra/ reserves the worker's concurrency: every mapping may run its maximum at once.
                int accounts = 1 + LocalProviders.otherAccounts(provider, tenantProviders).size();
                sandboxes.put(DeploymentSettings.FUNCTION_CHARGE_WORKER, queueConcurrency * accounts);
            }
            if (!events) {
                sandboxes.put(DeploymentSettings.FUNCTION_EVENT_DELIVERY, 0);
            } else if (!deliverySandboxesNamed) {
                sandboxes.put(DeploymentSettings.FUNCTION_EVENT_DELIVERY, eventConcurrency);
            }
            Duration deliveryTimeout = timeouts.get(DeploymentSettings.FUNCTION_EVENT_DELIVERY);
            if (events && eventVisibility.compareTo(deliveryTimeout) < 0) {
                throw new UsageException("--event-visibility " + eventVisibility.toSeconds() + "s is shorter than"
                        + " event-delivery's timeout (" + deliveryTimeout.toSeconds() + " s): Lambda refuses such an"
                        + " event-source mapping; shorten it too, e.g. --timeout event-delivery="
                        + eventVisibility.toSeconds() + "s");
            }
            Duration workerTimeout = timeouts.get(DeploymentSettings.FUNCTION_CHARGE_WORKER);
            if (queueVisibility.compareTo(workerTimeout) < 0) {
                throw new UsageException("--queue-visibility " + queueVisibility.toSeconds() + "s is shorter than charge-worker's"
                        + " timeout (" + workerTimeout.toSeconds() + " s): Lambda refuses such an event-source mapping;"
                        + " shorten it too, e.g. --timeout charge-worker=" + queueVisibility.toSeconds() + "s");
            }
            return new LocalRunOptions(app, workDir, apiPort, simPort, dynamoPort, dynalitePort, queuePort, sandboxes,
                    timeouts, integrationTimeout, reconcileEvery, queueVisibility, queueBatchSize, queueConcurrency, table,
                    heap, webhookSecret, provider, tenantProviders, unguardedTenants, respondAsyncTenants, providerUrl,
                    stripeWebhookSecret, stripeApiKey, simSeed, storeSeed, dynamoPath, env, cds, parentPid, devPort,
                    devEnvironment, events, merchantPort, merchantSecret, eventTenants, eventConcurrency, eventVisibility);
        }

        private static Map<String, String> perFunction(String value, String source) {
            Map<String, String> result = new LinkedHashMap<>();
            List<String> unknown = new ArrayList<>();
            for (String part : value.split(",")) {
                String p = part.trim();
                if (p.isEmpty()) {
                    continue;
                }
                int eq = p.indexOf('=');
                if (eq <= 0) {
                    throw new UsageException(source + " needs function=value pairs, e.g. charge=2,webhook=1");
                }
                String function = p.substring(0, eq).trim();
                if (!FUNCTIONS.contains(function)) {
                    unknown.add(function);
                }
                result.put(function, p.substring(eq + 1).trim());
            }
            if (!unknown.isEmpty()) {
                throw new UsageException(source + ": unknown function(s) " + unknown + " (known: " + FUNCTIONS + ")");
            }
            return result;
        }

        private static Cds cds(String value, String source) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "auto" -> Cds.AUTO;
                case "off" -> Cds.OFF;
                default -> throw new UsageException(source + " takes auto or off, got " + value);
            };
        }

        private static String providerId(String value, String source) {
            String id = value.trim().toLowerCase(Locale.ROOT);
            if (!PROVIDERS.contains(id)) {
                throw new UsageException(source + ": unknown provider '" + value + "' (known: " + String.join(", ", PROVIDERS)
                        + ")");
            }
            return id;
        }

        /** {@code tenant=provider[,tenant=provider...]}; tenant ids as the application's routing takes them. */
        private static Map<String, String> tenantProviders(String value, String source) {
            Map<String, String> result = new LinkedHashMap<>();
            for (String part : value.split(",")) {
                String p = part.trim();
                int eq = p.indexOf('=');
                if (eq <= 0 || eq == p.length() - 1) {
                    throw new UsageException(source + " needs TENANT=PROVIDER, e.g. merchant-b=stripe; got '" + p + "'");
                }
                String tenant = tenant(p.substring(0, eq).trim(), source);
                String account = p.substring(eq + 1).trim().toLowerCase(Locale.ROOT);
                result.put(tenant, account.equals(LocalProviders.SECOND_STRIPE_ACCOUNT) ? account
                        : providerId(account, source));
            }
            return result;
        }

        /** {@code tenant[,tenant...]}. */
        private static List<String> tenants(String value, String source) {
            return Arrays.stream(value.split(",")).map(String::trim).filter(t -> !t.isEmpty()).map(t -> tenant(t, source))
                    .toList();
        }

        /** A tenant whose endpoint's URL path ends with its id: a plain name. */
        private static String endpointTenant(String tenant, String source) {
            if (!tenant.matches(DeploymentSettings.NAME_PATTERN)) {
                throw new UsageException(source + ": tenant '" + tenant + "' must match " + DeploymentSettings.NAME_PATTERN
                        + " to have an endpoint");
            }
            return tenant;
        }

        /** A tenant id as the application's per-tenant properties take it. */
        private static String tenant(String tenant, String source) {
            if (!tenant.matches(DeploymentSettings.TENANT_PATTERN)) {
                throw new UsageException(source + ": tenant '" + tenant + "' must match " + DeploymentSettings.TENANT_PATTERN);
            }
            return tenant;
        }

        private static String url(String value, String source) {
            String v = value.trim();
            try {
                java.net.URI uri = new java.net.URI(v);
                if ((("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) && uri.getHost() != null) {
                    return v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
                }
            } catch (java.net.URISyntaxException e) {
                // named below
            }
            throw new UsageException(source + ": not an http(s) URL: " + value);
        }

        private static String secret(String value, String source) {
            if (value.isBlank()) {
                throw new UsageException(source + " must not be empty");
            }
            return value;
        }

        /** Stripe's test-mode secret or restricted key; the local run never moves real money. */
        private static String stripeTestKey(String value, String source) {
            String key = value.trim();
            if (!key.matches("(sk|rk)_test_[A-Za-z0-9_]+")) {
                throw new UsageException(source + " takes a Stripe test key (sk_test_… or rk_test_…), never a live one");
            }
            return key;
        }

        private static int port(String value, String source) {
            int port = integer(value, source);
            if (port < 1 || port > 65535) {
                throw new UsageException(source + ": not a port: " + value);
            }
            return port;
        }

        private static int count(String value, String source) {
            int n = integer(value, source);
            if (n < 0 || n > 16) {
                throw new UsageException(source + ": sandbox count must be 0..16, got " + value);
            }
            return n;
        }

        private static int within(String value, int min, int max, String source) {
            int n = integer(value, source);
            if (n < min || n > max) {
                throw new UsageException(source + " must be " + min + ".." + max + ", got " + value);
            }
            return n;
        }

        /** An SQS visibility timeout: whole seconds, at most 12 hours. */
        private static Duration visibility(Duration d, String source) {
            if (d.isNegative() || d.isZero() || d.toMillis() % 1000 != 0 || d.compareTo(MAX_QUEUE_VISIBILITY) > 0) {
                throw new UsageException(source + " takes whole seconds, 1s to 12h (SQS's VisibilityTimeout)");
            }
            return d;
        }

        private static int integer(String value, String source) {
            try {
                return Integer.parseInt(value.trim());
            } catch (NumberFormatException e) {
                throw new UsageException(source + ": not a number: " + value);
            }
        }

        private static long longValue(String value, String source) {
            try {
                return Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                throw new UsageException(source + ": not a number: " + value);
            }
        }

        private static Duration positive(Duration d, String source) {
            if (d.isNegative() || d.isZero()) {
                throw new UsageException(source + " must be positive");
            }
            return d;
        }

        private static String tableName(String value, String source) {
            if (!value.matches("[A-Za-z0-9_.-]{3,255}")) {
                throw new UsageException(source + ": a DynamoDB table name has 3-255 of [A-Za-z0-9_.-]");
            }
            return value;
        }
    }
}
