package dev.oncepay.drill;

import dev.oncepay.testkit.StoreFaults;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;

/**
 * Faults over time, for the provider ({@code POST /_sim/faults}), the store ({@code POST
 * /_store/faults} on the store fault proxy) or the merchant endpoint ({@code POST /_merchant/faults}):
 * a baseline of random faults for the profile, seeded windows of extra faults, and one full outage
 * (the merchant's: dark) that starts when a given share of the workload has started (so it lands in
 * the same place of the workload whatever the machine's speed) and lasts the plan's {@code outage}.
 */
final class FaultSchedule implements AutoCloseable {
    /** A window of extra faults, in ms since the workload started. */
    record Window(long startMs, long endMs, String label, Map<String, Object> patch) {
    }

    /**
     * What to apply where: {@code none} turns every fault off, {@code baseline} holds throughout,
     * windows and the outage come on top; the outage sets {@code outageSwitch} true.
     */
    record Plan(String target, String controlPath, Map<String, Object> none, Map<String, Object> baseline,
            List<Window> windows, Duration outage, double outageAtProgress, String outageSwitch) {
        /** A plan whose outage is the target's {@code outage} setting (the simulator's, the store proxy's). */
        Plan(String target, String controlPath, Map<String, Object> none, Map<String, Object> baseline,
                List<Window> windows, Duration outage, double outageAtProgress) {
            this(target, controlPath, none, baseline, windows, outage, outageAtProgress, "outage");
        }

        boolean quiet() {
            return baseline.equals(none) && windows.isEmpty() && outage.isZero();
        }
    }

    private final HttpClient http;
    private final String controlUrl;
    private final Recorder recorder;
    private final Plan plan;
    private final DoubleSupplier progress;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile long outageStartMs = -1;
    private volatile long outageEndMs = -1;
    /** The simulator's request counts ({@code /_sim/stats}) once the outage is on, and once it is off again. */
    private volatile String statsAtOutageStart;
    private volatile String statsAtOutageEnd;
    private String applied = "";

    /** @param baseUrl the simulator's or the store fault proxy's base URL */
    FaultSchedule(HttpClient http, String baseUrl, Recorder recorder, Plan plan, DoubleSupplier progress) {
        this.http = http;
        this.controlUrl = baseUrl + plan.controlPath();
        this.recorder = recorder;
        this.plan = plan;
        this.progress = progress;
        this.thread = new Thread(this::loop, "drill-faults-" + plan.target());
        this.thread.setDaemon(true);
    }

    /**
     * The provider's schedule for a profile: its baseline and windows, and the outage unless
     * {@code none}; with {@code slowStripe} (or null) every Stripe API call takes that much longer
     * throughout (the slow second account).
     */
    static Plan provider(String profile, long seed, Duration horizon, Duration outage, Duration slowStripe) {
        String faults = providerProfile(profile);
        Map<String, Object> baseline = baseline(faults);
        if (slowStripe != null) {
            baseline.put("stripeLatencyMs", slowStripe.toMillis());
        }
        return new Plan("provider", "/_sim/faults", none(), baseline, windows(faults, seed, horizon),
                faults.equals("none") ? Duration.ZERO : outage, 0.35);
    }

    /** The provider profile a drill profile runs with. */
    static String providerProfile(String profile) {
        return switch (profile) {
            case "store-faults" -> "none";
            case "all" -> "hostile-provider";
            default -> profile;
        };
    }

    static Map<String, Object> none() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("nonFinalRate", 0.0);
        f.put("emptyBodyRate", 0.0);
        f.put("serverErrorRetryAfterSeconds", 0);
        f.put("conflictRate", 0.0);
        f.put("lookupLagMs", 0);
        f.put("malformedLookupRate", 0.0);
        f.put("latencyMs", 0);
        f.put("stripeLatencyMs", 0);
        f.put("serverErrorRate", 0.0);
        f.put("rateLimitRate", 0.0);
        f.put("retryAfterSeconds", 1);
        f.put("resetRate", 0.0);
        f.put("commitThenTimeoutRate", 0.0);
        f.put("commitThenTimeoutMs", 6000);
        f.put("declineRate", 0.0);
        f.put("refundFailRate", 0.0);
        f.put("outage", false);
        f.put("webhookDuplicateRate", 0.0);
        f.put("webhookReorder", false);
        return f;
    }

    static Map<String, Object> baseline(String profile) {
        Map<String, Object> f = none();
        switch (profile) {
            case "mild" -> {
                f.put("serverErrorRate", 0.03);
                f.put("rateLimitRate", 0.03);
                f.put("resetRate", 0.01);
                f.put("commitThenTimeoutRate", 0.01);
                f.put("declineRate", 0.10);
                f.put("webhookDuplicateRate", 0.2);
                f.put("webhookReorder", true);
            }
            case "hostile", "hostile-provider" -> {
                f.put("serverErrorRate", 0.08);
                f.put("rateLimitRate", 0.06);
                f.put("resetRate", 0.03);
                // Held 6 s: longer than oncepay's 5 s read timeout, so the charge is executed and
                // oncepay answers 202 (unknown) — settled later by the webhook or reconcile.
                f.put("commitThenTimeoutRate", 0.04);
                f.put("declineRate", 0.15);
                // Refunds meet the charges' faults from their own dice; some the provider refuses.
                f.put("refundFailRate", 0.1);
                f.put("webhookDuplicateRate", 0.4);
                f.put("webhookReorder", true);
                if (profile.equals("hostile-provider")) {
                    // Real providers' habits: answers that are not outcomes, 5xx with a Retry-After
                    // longer than any wait oncepay may afford, keys still in flight at the provider,
                    // lookups that lag behind charges or come without their list.
                    f.put("nonFinalRate", 0.06);
                    f.put("emptyBodyRate", 0.04);
                    f.put("serverErrorRetryAfterSeconds", 3);
                    f.put("conflictRate", 0.04);
                    f.put("lookupLagMs", 2500);
                    f.put("malformedLookupRate", 0.1);
                    // A refund answered pending (nonFinalRate) settles, or fails, this much later.
                    f.put("refundSettleMs", 1500);
                }
            }
            default -> {
            }
        }
        return f;
    }

    /** Seeded windows: latency spikes (some past the 5 s read timeout) and throttling storms. */
    static List<Window> windows(String profile, long seed, Duration horizon) {
        List<Window> result = new ArrayList<>();
        if (profile.equals("none")) {
            return result;
        }
        Random random = new Random(seed * 31 + 7);
        long t = 3000;
        long end = horizon.toMillis();
        while (t < end) {
            t += 4000 + (long) (random.nextDouble() * 8000);
            long length = 1500 + random.nextInt(2500);
            double kind = random.nextDouble();
            Map<String, Object> patch = new LinkedHashMap<>();
            String label;
            if (kind < 0.55) {
                long ms = profile.equals("mild") ? 400 : 1500;
                patch.put("latencyMs", ms);
                label = "latency " + ms + " ms";
            } else if (kind < 0.75 && !profile.equals("mild")) {
                patch.put("latencyMs", 5500);
                label = "latency 5500 ms (past the read timeout)";
            } else if (kind < 0.85 && profile.equals("hostile-provider")) {
                patch.put("serverErrorRate", 0.5);
                patch.put("serverErrorRetryAfterSeconds", 120);
                label = "5xx storm, Retry-After 120 s";
            } else {
                patch.put("rateLimitRate", 0.5);
                patch.put("retryAfterSeconds", kind < 0.9 ? 1 : 3);
                label = "429 storm, Retry-After " + patch.get("retryAfterSeconds") + " s";
            }
            result.add(new Window(t, t + length, label, patch));
            t += length;
        }
        return result;
    }

    /** The store's schedule: rare faults throughout, windows of one kind each, and an outage. */
    static Plan store(String profile, long seed, Duration horizon, Duration outage) {
        Map<String, Object> none = storeNone();
        if (!profile.equals("store-faults") && !profile.equals("all")) {
            return new Plan("store", "/_store/faults", none, none, List.of(), Duration.ZERO, 0.6);
        }
        Map<String, Object> baseline = storeNone();
        baseline.put("throttleRate", 0.04);
        baseline.put("serverErrorRate", 0.02);
        baseline.put("stallRate", 0.005);
        baseline.put("lostAnswerRate", 0.03);
        List<Window> windows = new ArrayList<>();
        Random random = new Random(seed * 37 + 5);
        long t = 2000;
        while (t < horizon.toMillis()) {
            t += 2000 + (long) (random.nextDouble() * 4000);
            long length = 1500 + random.nextInt(2500);
            double kind = random.nextDouble();
            Map<String, Object> patch = new LinkedHashMap<>();
            String label;
            if (kind < 0.25) {
                patch.put("throttleRate", 0.6);
                label = "store throttling storm";
            } else if (kind < 0.45) {
                patch.put("serverErrorRate", 0.5);
                label = "store 500s";
            } else if (kind < 0.65) {
                patch.put("latencyMs", 400);
                label = "store latency 400 ms";
            } else if (kind < 0.8) {
                // Each stall outlasts the SDK's attempt timeout: a store call that hangs.
                patch.put("stallRate", 0.25);
                label = "store stalls";
            } else {
                patch.put("lostAnswerRate", 0.4);
                label = "store loses answers of committed writes";
            }
            windows.add(new Window(t, t + length, label, patch));
            t += length;
        }
        return new Plan("store", "/_store/faults", none, baseline, windows, outage, 0.6);
    }

    /** How long the dark merchant endpoint holds each delivery before its {@code 503}: within the 5 s call timeout. */
    static final long MERCHANT_DARK_STALL_MS = 2000;

    /**
     * The merchant endpoint's schedule: {@code failRate} of the deliveries answered {@code 500}
     * throughout, and dark for {@code dark} from half the workload on (each delivery held {@link
     * #MERCHANT_DARK_STALL_MS}, then {@code 503}).
     */
    static Plan merchant(double failRate, Duration dark) {
        Map<String, Object> none = new LinkedHashMap<>();
        none.put("failRate", 0.0);
        none.put("failStatus", 500);
        none.put("stallRate", 0.0);
        none.put("stallMs", MERCHANT_DARK_STALL_MS);
        none.put("dark", false);
        none.put("redirect", false);
        Map<String, Object> baseline = new LinkedHashMap<>(none);
        baseline.put("failRate", failRate);
        return new Plan("merchant", "/_merchant/faults", none, baseline, List.of(), dark, 0.5, "dark");
    }

    private static Map<String, Object> storeNone() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("latencyMs", 0);
        f.put("throttleRate", 0.0);
        f.put("serverErrorRate", 0.0);
        f.put("stallRate", 0.0);
        f.put("stallMs", StoreFaults.DEFAULT_STALL_MS);
        f.put("lostAnswerRate", 0.0);
        f.put("outage", false);
        return f;
    }

    /** Applies the baseline now (a setting the target refuses fails here, not silently later), then runs. */
    void start() throws IOException, InterruptedException {
        post(http, controlUrl, json(plan.baseline()));
        applied = json(plan.baseline());
        thread.start();
    }

    Plan plan() {
        return plan;
    }

    /** {@code GET} on the target's control path {@code path} (e.g. the proxy's injected-fault counts), or why not. */
    String read(String path) {
        try {
            String base = controlUrl.substring(0, controlUrl.length() - plan.controlPath().length());
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : "(" + path + " answered " + r.statusCode() + ")";
        } catch (IOException e) {
            return "(" + path + ": " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    long outageStartMs() {
        return outageStartMs;
    }

    long outageEndMs() {
        return outageEndMs;
    }

    private void loop() {
        while (!stopped) {
            long now = recorder.nowMs();
            if (outageStartMs < 0 && !plan.outage().isZero() && progress.getAsDouble() >= plan.outageAtProgress()) {
                outageStartMs = now;
                outageEndMs = now + plan.outage().toMillis();
            }
            Map<String, Object> f = new LinkedHashMap<>(plan.baseline());
            List<String> labels = new ArrayList<>();
            for (Window w : plan.windows()) {
                if (now >= w.startMs && now < w.endMs) {
                    f.putAll(w.patch);
                    labels.add(w.label);
                }
            }
            if (outageStartMs >= 0 && now < outageEndMs) {
                f.put(plan.outageSwitch(), true);
                labels.add(plan.outageSwitch().toUpperCase(Locale.ROOT));
            }
            String label = labels.isEmpty() ? "baseline" : String.join(", ", labels);
            try {
                apply(f, label);
                countOutage(outageStartMs >= 0 && now < outageEndMs);
            } catch (IOException e) {
                // the simulator or proxy is briefly busy: try again on the next tick
            } catch (InterruptedException e) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void apply(Map<String, Object> faults, String label) throws IOException, InterruptedException {
        String body = json(faults);
        if (body.equals(applied)) {
            return;
        }
        post(http, controlUrl, body);
        applied = body;
        recorder.event(plan.target() + " faults: " + label);
    }

    /**
     * Reads the provider's request counts when the outage is first seen applied, and when it is
     * first seen lifted: what reached the provider meanwhile is the provider's own count.
     */
    private void countOutage(boolean outageOn) {
        if (!plan.controlPath().equals("/_sim/faults")) {
            return; // the store's outage: the provider's counts say nothing about it
        }
        if (outageOn && statsAtOutageStart == null) {
            statsAtOutageStart = read("/_sim/stats");
        } else if (!outageOn && statsAtOutageStart != null && statsAtOutageEnd == null) {
            statsAtOutageEnd = read("/_sim/stats");
        }
    }

    /** The provider's request counts ({@code /_sim/stats} JSON) as the outage began and ended. */
    record OutageStats(String atStart, String atEnd) {
        private static final ObjectMapper JSON = new ObjectMapper();

        /** Charge requests that reached the provider meanwhile; -1 if its counts could not be read. */
        int chargeRequests() {
            return grewBy("chargeRequests");
        }

        /** What reached the provider meanwhile, e.g. {@code 12 charge requests, 3 lookups}, or why it is not known. */
        String during() {
            int charges = chargeRequests();
            int lookups = grewBy("lookupRequests");
            return charges < 0 || lookups < 0 ? "unknown (stats at start " + atStart + ", at end " + atEnd + ")"
                    : charges + " charge requests, " + lookups + " lookups";
        }

        /** How much count {@code field} grew from the outage's start to its end; -1 if either is unreadable. */
        private int grewBy(String field) {
            try {
                return JSON.readTree(atEnd).get(field).asInt() - JSON.readTree(atStart).get(field).asInt();
            } catch (IOException | RuntimeException unreadable) {
                return -1;
            }
        }
    }

    /** The provider's counts around its outage, or null when it had none. */
    OutageStats outageStats() {
        return statsAtOutageStart == null ? null : new OutageStats(statsAtOutageStart, statsAtOutageEnd);
    }

    /** Stops the schedule and turns every fault off. */
    void allOff() throws IOException, InterruptedException {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        post(http, controlUrl, json(plan.none()));
        applied = json(plan.none());
        countOutage(false); // the workload may end during the outage
        recorder.event(plan.target() + " faults: off");
    }

    private static void post(HttpClient http, String controlUrl, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(controlUrl))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 400 && r.statusCode() < 500) {
            throw new IllegalStateException("POST " + controlUrl + " refused " + body + ": " + r.statusCode() + " "
                    + r.body());
        }
        if (r.statusCode() != 200) {
            throw new IOException("POST " + controlUrl + " answered " + r.statusCode() + ": " + r.body());
        }
    }

    static String json(Map<String, Object> faults) {
        return faults.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\":" + (e.getValue() instanceof Double d
                        ? String.format(Locale.ROOT, "%.4f", d) : e.getValue()))
                .collect(Collectors.joining(",", "{", "}"));
    }

    static String describe(Map<String, Object> faults) {
        return faults.entrySet().stream().filter(e -> !(e.getValue() instanceof Number n && n.doubleValue() == 0)
                        && !Boolean.FALSE.equals(e.getValue()))
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
    }
}
