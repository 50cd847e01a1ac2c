package dev.oncepay.drill;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The comparison: the same workload straight to the PSP simulator (the generic API, or in Stripe
 * mode its PaymentIntents with the plan's card), the way a merchant without oncepay would do it — retry on timeout, reset, 429 and 5xx, but with no idempotency key to
 * reuse (the simulator requires the header, so every attempt gets a fresh one). Double-submitting
 * users submit twice. Its double charges are counted from the ledger afterwards.
 */
final class NaiveClient {
    static final int MAX_ATTEMPTS = 5;
    /** Like oncepay's read timeout towards the provider. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    record Result(int payment, long startMs, long latencyMs, String outcome, int attempts) {
    }

    private final HttpClient http;
    private final String simUrl;
    private final Recorder recorder;
    final ConcurrentLinkedQueue<Result> results = new ConcurrentLinkedQueue<>();

    NaiveClient(HttpClient http, String simUrl, Recorder recorder) {
        this.http = http;
        this.simUrl = simUrl;
        this.recorder = recorder;
    }

    static String reference(Workload.Plan plan) {
        return "naive_" + plan.index();
    }

    void submit(Workload.Plan plan, int submitter) throws InterruptedException {
        long start = recorder.nowMs();
        long t = System.nanoTime();
        String outcome = "gave-up";
        int attempt = 0;
        while (attempt < MAX_ATTEMPTS) {
            attempt++;
            long wait;
            try {
                HttpResponse<String> r = http.send(charge(plan)
                        .timeout(TIMEOUT)
                        .header("Idempotency-Key", "naive-" + plan.key() + "-" + submitter + "-" + attempt)
                        .build(), HttpResponse.BodyHandlers.ofString());
                int s = r.statusCode();
                if (s == 200 || s == 201) {
                    outcome = r.body().contains("\"declined\"") ? "declined"
                            : r.body().contains("\"requires_action\"") ? "requires_action" : "succeeded";
                    break;
                }
                if (s == 402) {
                    outcome = "declined";
                    break;
                }
                if (s == 429) {
                    wait = r.headers().firstValue("Retry-After").map(v -> Long.parseLong(v.trim()) * 1000).orElse(1000L);
                } else if (s >= 500) {
                    wait = GoodClient.backoff(attempt);
                } else {
                    outcome = "error-" + s;
                    break;
                }
            } catch (HttpTimeoutException e) {
                wait = GoodClient.backoff(attempt);
            } catch (IOException e) {
                wait = GoodClient.backoff(attempt);
            }
            GoodClient.sleep(Math.min(wait, 5000));
        }
        results.add(new Result(plan.index(), start, (System.nanoTime() - t) / 1_000_000, outcome, attempt));
    }

    /** The charge straight to the provider's API: the generic PSP's JSON, or a confirmed PaymentIntent with the plan's card. */
    private HttpRequest.Builder charge(Workload.Plan plan) {
        if (plan.paymentMethod() == null) {
            return HttpRequest.newBuilder(URI.create(simUrl + "/v1/charges"))
                    .header("Authorization", "Bearer local-sim-key")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + plan.amount() + ",\"currency\":\""
                            + plan.currency() + "\",\"reference\":\"" + reference(plan) + "\",\"description\":\""
                            + plan.reference() + "\"}"));
        }
        return HttpRequest.newBuilder(URI.create(simUrl + "/v1/payment_intents"))
                .header("Authorization", "Bearer sk_test_naive")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("amount=" + plan.amount() + "&currency="
                        + plan.currency().toLowerCase(java.util.Locale.ROOT) + "&payment_method=" + plan.paymentMethod()
                        + "&confirm=true&metadata%5Boncepay_payment_id%5D=" + reference(plan)));
    }

    /** References charged (succeeded) more than once, and the extra charges. */
    static int[] doubleCharges(List<Oracle.LedgerCharge> ledger) {
        java.util.Map<String, Integer> succeeded = new java.util.HashMap<>();
        for (Oracle.LedgerCharge c : ledger) {
            if (c.succeeded() && c.reference().startsWith("naive_")) {
                succeeded.merge(c.reference(), 1, Integer::sum);
            }
        }
        int payments = 0;
        int extra = 0;
        for (int n : succeeded.values()) {
            if (n > 1) {
                payments++;
                extra += n - 1;
            }
        }
        return new int[] {payments, extra};
    }
}
