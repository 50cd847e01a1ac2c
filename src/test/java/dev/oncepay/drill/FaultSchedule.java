package dev.oncepay.drill;

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
 * The provider's faults over time, set through {@code POST /_sim/faults}: a baseline of random
 * faults for the profile, seeded windows of latency spikes and throttling storms, and one full
 * outage that starts when a given share of the workload has started (so it lands in the same
 * place of the workload whatever the machine's speed) and lasts {@code outage}.
 */
final class FaultSchedule implements AutoCloseable {
    /** A window of extra faults, in ms since the workload started. */
    record Window(long startMs, long endMs, String label, Map<String, Object> patch) {
    }

    private final HttpClient http;
    private final String simUrl;
    private final Recorder recorder;
    private final Map<String, Object> baseline;
    private final List<Window> windows;
    private final Duration outage;
    private final double outageAtProgress;
    private final DoubleSupplier progress;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile long outageStartMs = -1;
    private volatile long outageEndMs = -1;
    private String applied = "";

    FaultSchedule(HttpClient http, String simUrl, Recorder recorder, String profile, long seed, Duration horizon,
            Duration outage, DoubleSupplier progress) {
        this.http = http;
        this.simUrl = simUrl;
        this.recorder = recorder;
        this.baseline = baseline(profile);
        this.windows = windows(profile, seed, horizon);
        this.outage = profile.equals("none") ? Duration.ZERO : outage;
        this.outageAtProgress = 0.35;
        this.progress = progress;
        this.thread = new Thread(this::loop, "drill-faults");
        this.thread.setDaemon(true);
    }

    static Map<String, Object> none() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("latencyMs", 0);
        f.put("serverErrorRate", 0.0);
        f.put("rateLimitRate", 0.0);
        f.put("retryAfterSeconds", 1);
        f.put("resetRate", 0.0);
        f.put("commitThenTimeoutRate", 0.0);
        f.put("commitThenTimeoutMs", 6000);
        f.put("declineRate", 0.0);
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
            case "hostile" -> {
                f.put("serverErrorRate", 0.08);
                f.put("rateLimitRate", 0.06);
                f.put("resetRate", 0.03);
                // Held 6 s: longer than oncepay's 5 s read timeout, so the charge is executed and
                // oncepay answers 202 (unknown) — settled later by the webhook or reconcile.
                f.put("commitThenTimeoutRate", 0.04);
                f.put("declineRate", 0.15);
                f.put("webhookDuplicateRate", 0.4);
                f.put("webhookReorder", true);
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
            } else if (kind < 0.75 && profile.equals("hostile")) {
                patch.put("latencyMs", 5500);
                label = "latency 5500 ms (past the read timeout)";
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

    void start() {
        thread.start();
    }

    long outageStartMs() {
        return outageStartMs;
    }

    long outageEndMs() {
        return outageEndMs;
    }

    List<Window> windows() {
        return windows;
    }

    private void loop() {
        while (!stopped) {
            long now = recorder.nowMs();
            if (outageStartMs < 0 && !outage.isZero() && progress.getAsDouble() >= outageAtProgress) {
                outageStartMs = now;
                outageEndMs = now + outage.toMillis();
            }
            Map<String, Object> f = new LinkedHashMap<>(baseline);
            List<String> labels = new ArrayList<>();
            for (Window w : windows) {
                if (now >= w.startMs && now < w.endMs) {
                    f.putAll(w.patch);
                    labels.add(w.label);
                }
            }
            if (outageStartMs >= 0 && now < outageEndMs) {
                f.put("outage", true);
                labels.add("OUTAGE");
            }
            String label = labels.isEmpty() ? "baseline" : String.join(", ", labels);
            try {
                apply(f, label);
            } catch (IOException e) {
                // the simulator is briefly busy: try again on the next tick
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
        post(http, simUrl, body);
        applied = body;
        recorder.event("faults: " + label);
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
        post(http, simUrl, json(none()));
        applied = json(none());
        recorder.event("faults: off");
    }

    static void post(HttpClient http, String simUrl, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(simUrl + "/_sim/faults"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("POST /_sim/faults answered " + r.statusCode() + ": " + r.body());
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

    Map<String, Object> baseline() {
        return baseline;
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
    }
}
