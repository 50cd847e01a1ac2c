package dev.oncepay.drill;

import dev.oncepay.sim.StripeCustomerEndpoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shopper at the bank's 3-D Secure prompt (Stripe mode): once oncepay answers a payment
 * {@code requires_action} (with the client secret the merchant's front end needs), its shopper —
 * after a moment's thought — approves or refuses it through the simulator's
 * {@code /_sim/stripe/authenticate} (as Stripe.js does with the {@code next_action}), or never comes
 * back ({@link Workload.AtPrompt}). Acts once per payment; a payment oncepay never says waits for its
 * customer shows no prompt, and stays awaiting at the provider.
 */
final class ShopperPrompt implements AutoCloseable {
    /** How long a shopper keeps trying to answer the prompt. */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final HttpClient http;
    private final String simUrl;
    private final Recorder recorder;
    private final Map<String, Boolean> seen = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final ScheduledExecutorService shoppers = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "drill-shopper-prompt");
        t.setDaemon(true);
        return t;
    });

    ShopperPrompt(HttpClient http, String simUrl, Recorder recorder) {
        this.http = http;
        this.simUrl = simUrl;
        this.recorder = recorder;
    }

    /** A client of {@code r} was told that {@code paymentId} requires the customer's action. */
    void show(Recorder.PaymentRecord r, String paymentId) {
        Workload.AtPrompt at = r.plan.atPrompt();
        if (at == Workload.AtPrompt.NONE || paymentId == null || seen.putIfAbsent(paymentId, true) != null) {
            return;
        }
        if (at == Workload.AtPrompt.ABANDONS) {
            count("abandoned");
            recorder.event("shopper abandons 3-D Secure for " + paymentId);
            return;
        }
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        // The shopper's thought: 0.3..1.5 s, fixed per order (its key comes from the workload's seed).
        long thinkMs = 300 + Math.floorMod(r.plan.key().hashCode(), 1200);
        schedule(() -> answer(paymentId, at == Workload.AtPrompt.APPROVES, deadline), thinkMs);
    }

    private void answer(String paymentId, boolean approved, long deadline) {
        int status;
        try {
            status = http.send(HttpRequest.newBuilder(URI.create(simUrl + StripeCustomerEndpoint.PATH))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"reference\":\"" + paymentId + "\",\"approved\":"
                            + approved + "}")).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            status = -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (status == 200) {
            count(approved ? "approved" : "refused");
            recorder.event("shopper " + (approved ? "approves" : "refuses") + " 3-D Secure for " + paymentId);
        } else if (status == 409) {
            count("prompt gone"); // it no longer waits for authentication
        } else if (System.nanoTime() < deadline) {
            schedule(() -> answer(paymentId, approved, deadline), 1000); // the simulator did not answer
        } else {
            count("gave up");
        }
    }

    private void schedule(Runnable action, long delayMs) {
        try {
            shoppers.schedule(action, delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // the drill is over
        }
    }

    private void count(String outcome) {
        outcomes.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
    }

    /** What the shoppers did at the prompt: approved, refused, abandoned (prompt gone, gave up: rare). */
    Map<String, Integer> outcomes() {
        Map<String, Integer> result = new TreeMap<>();
        outcomes.forEach((k, v) -> result.put(k, v.get()));
        return result;
    }

    /** The payments oncepay answered {@code requires_action} for, so their shopper saw the prompt. */
    java.util.Set<String> shown() {
        return java.util.Set.copyOf(seen.keySet());
    }

    @Override
    public void close() {
        shoppers.shutdownNow();
    }
}
