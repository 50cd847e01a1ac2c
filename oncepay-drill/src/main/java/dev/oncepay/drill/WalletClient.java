package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A merchant's wallet client: one key per operation reused on every retry (timeouts, 5xx, 409 with
 * its Retry-After) until a final answer, {@code 201} or {@code 402}; a shopper meets a gateway error
 * or a timeout by asking again under a fresh key. Counts every answer by operation and status.
 */
final class WalletClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MAX_RETRY_AFTER_MS = 10_000;

    /** A wallet as {@code GET /wallets/{walletId}} shows it, every page read. */
    record Wallet(long balance, String currency, List<JsonNode> entries) {
    }

    private final HttpClient http;
    private final String api;
    /** Answers by {@code <credits|debits> <status>[ replay]}, and the outcome of failed requests. */
    private final Map<String, Integer> answers = new TreeMap<>();

    WalletClient(HttpClient http, String api) {
        this.http = http;
        this.api = api;
    }

    /** Asks until a final answer or {@code retryUntilNanos}. */
    void submit(WalletRecord r, int submitter, long retryUntilNanos) throws InterruptedException {
        int failures = 0;
        while (System.nanoTime() < retryUntilNanos) {
            String key = r.key(submitter);
            HttpRequest request = HttpRequest.newBuilder(URI.create(api + "/wallets/" + r.plan.walletId() + "/"
                            + r.plan.kind().segment))
                    .timeout(GoodClient.REQUEST_TIMEOUT)
                    .header("Idempotency-Key", key)
                    .header("X-Tenant-Id", r.plan.tenant())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(r.plan.body(r.referenceOf.get(key))))
                    .build();
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (HttpTimeoutException e) {
                count(r, "timeout");
                response = null;
            } catch (IOException e) {
                count(r, "io-error");
                response = null;
            }
            int status = response == null ? 0 : response.statusCode();
            boolean replayed = response != null && response.headers().firstValue("Idempotent-Replayed").isPresent();
            if (response != null) {
                count(r, status + (replayed ? " replay" : ""));
            }
            if (status == 201 || status == 402) {
                r.answered(submitter, new WalletRecord.Answer(key, status, status == 201 ? entryId(response.body()) : null,
                        replayed, response.body()));
                return;
            }
            if (status == 409) {
                GoodClient.sleep(retryAfter(response));
            } else if (status >= 400 && status < 500) {
                // 400/404/422: never for a fixed, valid body; the verdict lists it
                r.answered(submitter, new WalletRecord.Answer(key, status, null, replayed, response.body()));
                return;
            } else {
                GoodClient.sleep(GoodClient.backoff(failures++));
                if (r.plan.shopper()) {
                    r.askAgain(submitter);
                }
            }
        }
    }

    /** Every page of {@code GET /wallets/{walletId}}, or null if it is not found (404). */
    Wallet read(String tenant, String walletId) throws IOException, InterruptedException {
        List<JsonNode> entries = new ArrayList<>();
        String cursor = null;
        JsonNode page;
        do {
            String url = api + "/wallets/" + walletId + "?limit=100"
                    + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            HttpResponse<String> r = get(url, tenant);
            if (r.statusCode() == 404 && cursor == null) {
                return null;
            }
            if (r.statusCode() != 200) {
                throw new IOException("GET " + url + " answered " + r.statusCode() + ": " + r.body());
            }
            page = JSON.readTree(r.body());
            page.path("entries").forEach(entries::add);
            cursor = page.path("nextCursor").isTextual() ? page.path("nextCursor").asText() : null;
        } while (cursor != null);
        return new Wallet(page.path("balance").asLong(), page.path("currency").asText(null), entries);
    }

    /** A GET, asked again a few times after a 5xx (the entries index lags a little behind its items). */
    private HttpResponse<String> get(String url, String tenant) throws IOException, InterruptedException {
        HttpResponse<String> r = null;
        for (int attempt = 0; attempt < 5 && (r == null || r.statusCode() >= 500); attempt++) {
            if (attempt > 0) {
                Thread.sleep(500);
            }
            r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(GoodClient.REQUEST_TIMEOUT)
                    .header("X-Tenant-Id", tenant).GET().build(), HttpResponse.BodyHandlers.ofString());
        }
        return r;
    }

    /** The entry a {@code 201} names: {@code entry.id}, or the answer's own {@code id}. */
    static String entryId(String body) {
        try {
            JsonNode json = JSON.readTree(body);
            JsonNode id = json.path("entry").path("id");
            return id.isTextual() ? id.asText() : json.path("id").asText(null);
        } catch (IOException e) {
            return null;
        }
    }

    synchronized Map<String, Integer> answers() {
        return new TreeMap<>(answers);
    }

    private synchronized void count(WalletRecord r, String outcome) {
        answers.merge(r.plan.kind().segment + " " + outcome, 1, Integer::sum);
    }

    private static long retryAfter(HttpResponse<String> response) {
        try {
            return Math.min(MAX_RETRY_AFTER_MS,
                    Long.parseLong(response.headers().firstValue("Retry-After").orElse("1").trim()) * 1000);
        } catch (NumberFormatException e) {
            return 1000;
        }
    }
}
