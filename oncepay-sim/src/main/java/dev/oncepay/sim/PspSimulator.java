package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.oncepay.sim.merchant.MerchantEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Stripe-shaped payment provider on 127.0.0.1 for integration tests and local runs (design §4):
 * idempotent charges, lookup by reference, signed webhooks, injectable faults, and a ledger of
 * every charge it really executed — the oracle that proves "no double charge". Beside the generic
 * API ({@code /v1/charges}) it serves Stripe's PaymentIntents API ({@code /v1/payment_intents},
 * {@link StripeMode}) on the same port, over the same ledger and faults.
 *
 * <p>Tests start it in-process with {@link #start(int)} (0 = free port) and steer it either over
 * HTTP ({@code /_sim/...}) or through the Java accessors here; both act on the same state.
 */
public final class PspSimulator implements AutoCloseable {

    public static final int DEFAULT_PORT = 8090;
    /** Enough for the concurrency tests (20 parked identical requests) plus sleeping fault handlers. */
    private static final int HTTP_THREADS = 64;

    static {
        // The JDK server writes response headers and body as separate small TCP segments; with
        // Nagle on, the body waits for the client's delayed ACK, adding ~40 ms to every answer.
        // The JDK reads this once, when the first HttpServer in the JVM is created.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final SimulatorOptions options;
    private final ObjectMapper json = new ObjectMapper();
    private final Ledger ledger = new Ledger();
    private final IdempotencyKeys keys;
    private final FaultControl faults;
    private final ChargeGate gate = new ChargeGate();
    private final Shutdown shutdown = new Shutdown();
    private final RequestCounters counters = new RequestCounters();
    /** Refunds of one charge, by either API, check what is left and record one at a time. */
    private final KeyedLocks chargeLocks = new KeyedLocks();
    private final RefundSettler settler = new RefundSettler();
    private final WebhookSender webhooks;
    private final SimulatedProvider provider;
    private final IdempotencyKeys stripeKeys;
    private final WebhookSender stripeWebhooks;
    private final StripeProvider stripeProvider;
    private final StripeRefunds stripeRefunds;
    private final StripeMode stripe;
    private final ExecutorService httpThreads;
    private final HttpServer server;

    private PspSimulator(SimulatorOptions options) throws IOException {
        this.options = options;
        this.keys = new IdempotencyKeys(options.clock(), options.idempotencyRetention());
        this.faults = new FaultControl(options.seed());
        this.webhooks = new WebhookSender(faults::current, webhookSeed(), WebhookSignature.HEADER);
        this.provider = new SimulatedProvider(json, options.clock(), ledger, keys, webhooks, chargeLocks, settler);
        // Stripe's keys and events are its own (another provider account), ledger and faults are shared.
        this.stripeKeys = new IdempotencyKeys(options.clock(), options.idempotencyRetention());
        this.stripeWebhooks = new WebhookSender(faults::current, stripeWebhookSeed(), StripeMode.SIGNATURE_HEADER);
        this.stripeProvider = new StripeProvider(json, options.clock(), ledger, stripeKeys, stripeWebhooks);
        this.stripeRefunds = new StripeRefunds(json, options.clock(), ledger, stripeProvider, stripeWebhooks,
                chargeLocks, settler);
        this.stripe = new StripeMode(json, stripeProvider, stripeWebhooks);

        AtomicInteger threadNumber = new AtomicInteger();
        this.httpThreads = Executors.newFixedThreadPool(HTTP_THREADS, runnable -> {
            Thread thread = new Thread(runnable, "psp-sim-http-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), options.port()), 128);
        server.setExecutor(httpThreads);
        server.createContext(ChargesEndpoint.PATH, new ChargesEndpoint(json, provider, faults, gate, shutdown, counters));
        // One path, two APIs: a Stripe request (form body, Stripe-Version, ...) goes to Stripe's refunds.
        RefundsEndpoint genericRefunds = new RefundsEndpoint(json, provider, faults, gate, shutdown, counters);
        StripeRefundsEndpoint stripeRefundsEndpoint = new StripeRefundsEndpoint(json, stripeProvider, stripeRefunds,
                faults, gate, shutdown, counters);
        server.createContext(RefundsEndpoint.PATH, exchange ->
                (stripeRefundsEndpoint.claims(exchange) ? stripeRefundsEndpoint : genericRefunds).handle(exchange));
        server.createContext(PaymentIntentsEndpoint.PATH,
                new PaymentIntentsEndpoint(json, stripeProvider, faults, gate, shutdown, counters));
        server.createContext(ControlEndpoint.PATH, new ControlEndpoint(json, ledger, faults, counters, this::reset));
        server.createContext(StripeCustomerEndpoint.PATH, new StripeCustomerEndpoint(json, stripe));
        server.createContext("/", new NotFoundEndpoint(json));
        server.start();
    }

    public static PspSimulator start(int port) {
        return start(SimulatorOptions.onPort(port));
    }

    public static PspSimulator start(int port, long seed) {
        return start(SimulatorOptions.onPort(port).withSeed(seed));
    }

    public static PspSimulator start(SimulatorOptions options) {
        try {
            return new PspSimulator(options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the PSP simulator on port " + options.port(), e);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:<port>}, without a trailing slash. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    // --- the oracle and the knobs ---------------------------------------------------------------

    /** Every charge executed (succeeded or declined), one entry per execution, oldest first. */
    public List<LedgerEntry> ledger() {
        return ledger.all().stream().map(Charge::toLedgerEntry).toList();
    }

    /** Every refund accepted (succeeded, pending or failed), as it stands now, oldest first. */
    public List<Refund> refunds() {
        return ledger.refunds();
    }

    public Faults faults() {
        return faults.current();
    }

    public void setFaults(Faults newFaults) {
        faults.set(newFaults);
    }

    /**
     * Clears the ledger (charges and refunds; a pending refund is forgotten), idempotency keys, faults, counters and webhook attempts, restarts the
     * seeded dice, and releases held charges. The webhook target is configuration and stays.
     */
    public void reset() {
        ledger.clear();
        keys.clear();
        faults.reset();
        counters.reset();
        webhooks.reset(webhookSeed());
        stripeKeys.clear();
        stripeProvider.clear();
        stripeRefunds.clear();
        stripeWebhooks.reset(stripeWebhookSeed());
        gate.release();
    }

    /** The Stripe API served beside the generic one: its webhooks and test hooks. */
    public StripeMode stripe() {
        return stripe;
    }

    /**
     * Charge requests received ({@code POST /v1/charges} and {@code POST /v1/payment_intents}),
     * including invalid, faulted and replayed ones.
     */
    public int chargeRequests() {
        return counters.charges();
    }

    /**
     * The next charge requests are answered with these HTTP statuses (error bodies, nothing
     * executed), in order, before any random fault: for deterministic retry tests.
     */
    public void scriptChargeAnswers(int... statuses) {
        for (int status : statuses) {
            counters.scriptedAnswers.add(ScriptedAnswer.refusal(status));
        }
    }

    /**
     * The next charge request is executed as usual (a new charge, or the key's stored one) but
     * answered with exactly this status and body ({@code ""} = no body): for the answers a real
     * provider may give that are no final answer (204, an unreadable 200, ...).
     */
    public void scriptAnswerAfterCommit(int status, String body) {
        counters.scriptedAnswers.add(ScriptedAnswer.afterCommit(status, body));
    }

    /** Refund requests received ({@code POST /v1/refunds}, both APIs), including invalid, faulted and replayed ones. */
    public int refundRequests() {
        return counters.refunds();
    }

    /**
     * Refund lookups received, both APIs: {@code GET /v1/refunds?reference=} / {@code ?payment_intent=}
     * and {@code GET /v1/refunds/{id}}.
     */
    public int refundLookupRequests() {
        return counters.refundLookups();
    }

    /** When each charge request arrived, in order. */
    public List<Instant> chargeArrivals() {
        return List.copyOf(counters.chargeArrivals);
    }

    /** Lookups received: {@code GET /v1/charges} and {@code GET /v1/payment_intents/…} (retrieve and search). */
    public int lookupRequests() {
        return counters.lookups();
    }

    /**
     * From now on, charge and refund requests that pass the fault checks and validation wait just
     * before execution until {@link #releaseCharges()}.
     */
    public void holdCharges() {
        gate.hold();
    }

    public void releaseCharges() {
        gate.release();
    }

    /** @return true once {@code count} charge requests are parked, false on timeout */
    public boolean awaitHeldRequests(int count, Duration timeout) {
        try {
            return gate.awaitParked(count, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // --- webhooks -------------------------------------------------------------------------------

    /** Sends an event after every executed charge to {@code url} (used as given). */
    public void setWebhookTarget(URI url, String secret, String providerId) {
        webhooks.target(new WebhookTarget(url, secret, providerId));
    }

    public void setWebhookTarget(URI url, String secret) {
        setWebhookTarget(url, secret, WebhookTarget.DEFAULT_PROVIDER_ID);
    }

    public void clearWebhookTarget() {
        webhooks.target(null);
    }

    public Optional<WebhookTarget> webhookTarget() {
        return Optional.ofNullable(webhooks.target());
    }

    /** The target's secret, or {@code local-sim-secret} when no target is set. */
    public String webhookSecret() {
        return webhookTarget().map(WebhookTarget::secret).orElse(WebhookTarget.DEFAULT_SECRET);
    }

    /** The full {@code Payment-Signature} header value ({@code t=…,v1=…}) for {@code body}. */
    public String sign(String body, long unixSeconds) {
        return WebhookSignature.header(webhookSecret(), body, unixSeconds);
    }

    /**
     * A signed event of {@code type} about the latest charge with {@code reference}, signed now,
     * not sent: for tests that post it themselves (or tamper with it first).
     *
     * @throws IllegalStateException when no charge with that reference was executed
     */
    public WebhookDelivery webhookFor(String type, String reference) {
        return deliveryOf(eventFor(type, reference));
    }

    /**
     * Emits an event of {@code type} about the latest charge with {@code reference} through the
     * normal asynchronous delivery (webhook faults apply).
     */
    public WebhookDelivery sendWebhook(String type, String reference) {
        return sendWebhook(eventFor(type, reference));
    }

    /** Emits an arbitrary event through the normal asynchronous delivery. */
    public WebhookDelivery sendWebhook(WebhookEvent event) {
        if (webhooks.target() == null) {
            throw new IllegalStateException("no webhook target set");
        }
        WebhookDelivery delivery = deliveryOf(event);
        webhooks.publish(event.id(), event.type(), delivery.body());
        return delivery;
    }

    public List<WebhookAttempt> webhookAttempts() {
        return webhooks.attempts();
    }

    /** @return true once every queued webhook delivery succeeded or gave up, false on timeout */
    public boolean awaitWebhooks(Duration timeout) {
        return webhooks.awaitIdle(timeout);
    }

    private WebhookEvent eventFor(String type, String reference) {
        Charge charge = ledger.latest(reference)
                .orElseThrow(() -> new IllegalStateException("no charge with reference " + reference));
        return WebhookEvent.of(type, charge);
    }

    private WebhookDelivery deliveryOf(WebhookEvent event) {
        return WebhookDelivery.signed(event.id(), event.toJson(json), webhookSecret(), Instant.now().getEpochSecond());
    }

    private long webhookSeed() {
        return options.seed() + 1; // its own sequence, so webhook dice do not shift charge faults
    }

    private long stripeWebhookSeed() {
        return options.seed() + 3; // seed + 2 is the lookups'
    }

    /** Stops at once: sleeping and parked requests end, their connections are dropped. */
    @Override
    public void close() {
        shutdown.trigger();
        gate.close();
        server.stop(0);
        httpThreads.shutdownNow();
        settler.close();
        webhooks.close();
        stripeWebhooks.close();
    }

    // --- local run ------------------------------------------------------------------------------

    /**
     * {@code --port N} (default 8090), {@code --webhook-url URL}, {@code --webhook-secret S}
     * (default {@code local-sim-secret}), {@code --stripe-webhook-url URL},
     * {@code --stripe-webhook-secret S} (default {@link StripeMode#DEFAULT_WEBHOOK_SECRET}),
     * {@code --seed N}. Both APIs are always served. {@code --merchant-port N} also starts a
     * {@link MerchantEndpoint} there (0: any free port), verifying with each repeated
     * {@code --merchant-secret <endpoint>=<secret>}.
     */
    public static void main(String[] args) {
        int port = DEFAULT_PORT;
        long seed = SimulatorOptions.DEFAULT_SEED;
        String webhookUrl = null;
        String webhookSecret = WebhookTarget.DEFAULT_SECRET;
        String stripeWebhookUrl = null;
        String stripeWebhookSecret = StripeMode.DEFAULT_WEBHOOK_SECRET;
        Integer merchantPort = null;
        List<String> merchantSecrets = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(required(args[i], value));
                case "--seed" -> seed = Long.parseLong(required(args[i], value));
                case "--webhook-url" -> webhookUrl = required(args[i], value);
                case "--webhook-secret" -> webhookSecret = required(args[i], value);
                case "--stripe-webhook-url" -> stripeWebhookUrl = required(args[i], value);
                case "--stripe-webhook-secret" -> stripeWebhookSecret = required(args[i], value);
                case "--merchant-port" -> merchantPort = Integer.parseInt(required(args[i], value));
                case "--merchant-secret" -> merchantSecrets.add(required(args[i], value));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (known: --port N, --webhook-url URL, --webhook-secret S, --stripe-webhook-url URL,"
                        + " --stripe-webhook-secret S, --seed N, --merchant-port N, --merchant-secret ENDPOINT=SECRET)");
            }
            i++;
        }
        PspSimulator simulator = start(SimulatorOptions.onPort(port).withSeed(seed));
        if (webhookUrl != null) {
            simulator.setWebhookTarget(URI.create(webhookUrl), webhookSecret);
        }
        if (stripeWebhookUrl != null) {
            simulator.stripe().setWebhookTarget(URI.create(stripeWebhookUrl), stripeWebhookSecret);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(simulator::close, "psp-sim-shutdown"));
        System.out.println("PSP simulator listening on " + simulator.baseUrl());
        if (merchantPort != null) {
            MerchantEndpoint merchant = MerchantEndpoint.start(merchantPort, MerchantEndpoint.secrets(merchantSecrets));
            Runtime.getRuntime().addShutdownHook(new Thread(merchant::close, "merchant-shutdown"));
            System.out.println("Merchant endpoint listening on " + merchant.baseUrl() + MerchantEndpoint.DELIVERY_PATH
                    + "<endpoint> (" + merchantSecrets.size() + " secrets)");
        } else if (!merchantSecrets.isEmpty()) {
            throw new IllegalArgumentException("--merchant-secret needs --merchant-port");
        }
        // The JDK server's dispatcher thread is not a daemon: the process runs until killed.
    }

    private static String required(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }
}
