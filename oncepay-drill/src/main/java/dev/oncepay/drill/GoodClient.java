package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A merchant client of oncepay: one key per payment reused on every retry; retries timeouts, 5xx
 * and a {@code 409} for its key in flight (honouring Retry-After), polls a 202 with
 * {@code GET /payments/{id}} (and now and then by replaying its key) until the payment is terminal
 * or its time is up. An order paid asynchronously ({@link Workload.Plan#respondAsync}) sends every
 * request with {@code Prefer: respond-async} and is answered 202 once its charge is queued; the
 * client polls it the same way, the first polls sooner. For a shopper's payment ({@link Workload.Plan#shopper}) it behaves like the
 * shopper: a 5xx (the gateway's, or oncepay's own 503) or a timeout makes it pay the same order
 * again under a fresh key. A
 * {@code 409} that says the order is paid or its payment in progress (another key's) ends the
 * paying: the client follows the payment its {@code Location} names until it is terminal.
 */
final class GoodClient {
    /** Above the local gateway's worst case: a wait for a free sandbox, then the integration timeout (2 x 13 s). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final long MAX_RETRY_AFTER_MS = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The status of a payment whose provider waits for the customer to authenticate (3-D Secure). */
    static final String AWAITING_CUSTOMER = "requires_action";
    /** The problem type of a {@code 409} for a request of the same key still running: ask again later. */
    static final String REQUEST_IN_FLIGHT = "request-in-flight";
    /** The problem types of a {@code 409} that refuses a payment because its order has one (paid, or live). */
    static final java.util.Set<String> ORDER_REFUSALS = java.util.Set.of("order-already-paid", "order-in-progress");
    /** The request header (RFC 7240) that asks oncepay to queue the charge and answer 202 at once. */
    static final String PREFER_ASYNC = "respond-async";
    /**
     * The outcomes of oncepay's 503s that refuse a charge for the provider's state (the account's
     * bulkhead full, its breaker open, the provider down): never the answer to a queued charge.
     */
    static final java.util.Set<String> PROVIDER_REFUSALS = java.util.Set.of("503-capacity", "503-breaker", "503");

    private final HttpClient http;
    private final String api;
    private final Recorder recorder;
    private final java.util.concurrent.ExecutorService pollers;
    private final long pollersUntilNanos;
    private final ShopperPrompt prompt;

    /**
     * @param pollers where a 202 is polled (a merchant's background status check), so the client
     *        goes on with its next payment; null to poll on the submitting thread
     * @param prompt where the shopper answers the bank once oncepay says {@code requires_action}
     */
    GoodClient(HttpClient http, String api, Recorder recorder, java.util.concurrent.ExecutorService pollers,
            long pollersUntilNanos, ShopperPrompt prompt) {
        this.prompt = prompt;
        this.http = http;
        this.api = api;
        this.recorder = recorder;
        this.pollers = pollers;
        this.pollersUntilNanos = pollersUntilNanos;
    }

    /**
     * Submits until a definitive answer (201, 402, 202, or a {@code 409} order refusal), then polls
     * a 202's payment, or follows the refusal's, until terminal or {@code pollUntilNanos}; gives up
     * retrying at {@code retryUntilNanos}. A shopper (see {@link Workload.Plan#shopper}) meets a
     * 5xx or a timeout by paying again under a fresh key; everyone else retries the same
     * key.
     */
    void submit(Recorder.PaymentRecord r, int submitter, long retryUntilNanos, long pollUntilNanos)
            throws InterruptedException {
        int failures = 0;
        while (System.nanoTime() < retryUntilNanos) {
            Result res = post(r, r.key(submitter));
            switch (res.status) {
                case 200, 201, 402 -> { // 200: a replay of a payment in NEEDS_REVIEW
                    r.answered(submitter, new Recorder.Answer(res.status, res.paymentStatus, res.paymentId, res.atMs));
                    return;
                }
                case 202 -> {
                    await(r, submitter, new Recorder.Answer(202, "pending", res.paymentId, res.atMs), pollUntilNanos);
                    return;
                }
                case 409 -> {
                    if (REQUEST_IN_FLIGHT.equals(res.problem)) {
                        sleep(retryAfter(res, 1000));
                    } else if (refusesTheOrder(res)) {
                        // Paying again could only be refused again: the order's own payment decides it.
                        await(r, submitter, follow(r, res), pollUntilNanos);
                        return;
                    } else {
                        unexpected(r, submitter, res); // order-mismatch: the drill never changes an order's amount
                        return;
                    }
                }
                default -> {
                    if (res.status < 500 && res.status > 0) {
                        unexpected(r, submitter, res); // 400/422/404...: a good client with a fixed body never sees these
                        return;
                    }
                    if (res.unavailable) {
                        // Nothing was charged (yet): the honest answer of a 503 problem from oncepay.
                        r.answered(submitter, new Recorder.Answer(503, "unavailable", null, res.atMs));
                        sleep(retryAfter(res, 5000));
                    } else {
                        sleep(backoff(failures++));
                    }
                    if (r.plan.shopper()) {
                        r.payAgain(submitter, res.atMs, res.outcome);
                    }
                }
            }
        }
    }

    /**
     * Whether an attempt's outcome says nothing of what oncepay did with the request: the gateway's
     * 5xx (a killed sandbox, an integration timeout), a timeout, a lost connection; oncepay's own
     * 503 problems say that nothing was charged.
     */
    static boolean unanswered(String outcome) {
        return outcome.equals("timeout") || outcome.equals("io-error") || outcome.equals("503-gw")
                || outcome.startsWith("5") && !outcome.startsWith("503");
    }

    private static void unexpected(Recorder.PaymentRecord r, int submitter, Result res) {
        r.unexpected.incrementAndGet();
        r.answered(submitter, new Recorder.Answer(res.status, "rejected", null, res.atMs));
    }

    /**
     * Records a payment still pending for the submitter and polls it: in the background when there
     * are pollers (a merchant's status check, so the client goes on with its next payment), else here.
     */
    private void await(Recorder.PaymentRecord r, int submitter, Recorder.Answer pending, long pollUntilNanos)
            throws InterruptedException {
        r.answered(submitter, pending);
        if (pollers != null && !pollers.isShutdown()) {
            try {
                pollers.execute(() -> {
                    try {
                        poll(r, submitter, pending, pollersUntilNanos);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                return;
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // poll here instead
            }
        }
        poll(r, submitter, pending, pollUntilNanos);
    }

    /**
     * Polls a pending payment until terminal; every third poll of its own key's payment replays the
     * key instead of reading by id. A replay answered with an order refusal (the key's payment lost
     * its order to another key's) follows the order's payment from then on, as a refused POST does.
     * A followed payment is only read: the refused key holds nothing to replay, and a POST under it
     * would be a new payment. A followed payment that is gone (404) was deleted unsent, so nothing
     * was charged and the order is free: that is the answer, and the settle phase asks again under
     * the submitter's own key.
     */
    void poll(Recorder.PaymentRecord r, int submitter, Recorder.Answer pending, long untilNanos)
            throws InterruptedException {
        Recorder.Answer awaited = pending;
        int n = 0;
        while (System.nanoTime() < untilNanos) {
            sleep(pollDelayMs(r.plan.respondAsync(), n++));
            String paymentId = awaited.paymentId();
            Result res = !awaited.followed() && n % 3 == 0 ? post(r, r.key(submitter)) : get(r, paymentId);
            r.polls.incrementAndGet();
            if (!awaited.followed() && refusesTheOrder(res)) {
                awaited = follow(r, res);
                r.answered(submitter, awaited);
                continue;
            }
            if (awaited.followed() && res.status == 404) {
                r.answered(submitter, new Recorder.Answer(404, "not_found", paymentId, res.atMs, true));
                return;
            }
            if (res.paymentStatus != null && !"pending".equals(res.paymentStatus)
                    && (res.status == 200 || res.status == 201 || res.status == 402)) {
                r.answered(submitter, new Recorder.Answer(res.status, res.paymentStatus, paymentId, res.atMs,
                        awaited.followed()));
                return;
            }
        }
    }

    /** A {@code 409} that refuses the payment because its order has another, paid or live, that its {@code Location} names. */
    private static boolean refusesTheOrder(Result res) {
        return res.status == 409 && ORDER_REFUSALS.contains(res.problem) && res.paymentId != null;
    }

    /** The answer of a submitter that stops paying to follow the order's payment a {@code 409} named. */
    private static Recorder.Answer follow(Recorder.PaymentRecord r, Result res) {
        r.followed.incrementAndGet();
        return new Recorder.Answer(409, "pending", res.paymentId, res.atMs, true);
    }

    /**
     * The wait before the n-th poll (from 0): a second, but a queued charge's first polls come after
     * 200, 400 and 800 ms, as its outcome is usually there well within a second and the time from
     * its 202 to the outcome is measured at the polls.
     */
    static long pollDelayMs(boolean queued, int n) {
        return queued ? Math.min(1000, 200L << Math.min(n, 3)) : 1000;
    }

    /**
     * @param paymentId the payment the answer is about; for a {@code 409} order refusal the order's
     *        payment its {@code Location} names
     * @param unavailable a 503 problem from oncepay itself (provider or store unavailable, nothing charged)
     * @param problem a {@code 409}'s problem type, its last path segment ({@code request-in-flight}, ...)
     */
    private record Result(int status, String outcome, String paymentStatus, String paymentId, boolean unavailable,
            String problem, String retryAfter, long atMs) {
    }

    private Result post(Recorder.PaymentRecord r, String key) throws InterruptedException {
        r.posts.incrementAndGet();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api + "/payments"))
                .timeout(REQUEST_TIMEOUT)
                .header("Idempotency-Key", key)
                .header("X-Tenant-Id", r.plan.tenant())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(r.plan.body()));
        if (r.plan.respondAsync()) {
            request.header("Prefer", PREFER_ASYNC);
        }
        return send(r, "POST", key, request.build());
    }

    private Result get(Recorder.PaymentRecord r, String paymentId) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(api + "/payments/" + paymentId))
                .timeout(REQUEST_TIMEOUT)
                .header("X-Tenant-Id", r.plan.tenant())
                .GET()
                .build();
        return send(r, "GET", null, request);
    }

    private Result send(Recorder.PaymentRecord r, String method, String key, HttpRequest request)
            throws InterruptedException {
        long start = recorder.nowMs();
        int status;
        String outcome;
        String paymentStatus = null;
        String paymentId = null;
        boolean unavailable = false;
        boolean awaitingCustomer = false;
        boolean replayed = false;
        boolean applied = false;
        String retryAfter = null;
        String problem = null;
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            status = response.statusCode();
            outcome = Integer.toString(status);
            replayed = response.headers().firstValue("Idempotent-Replayed").isPresent();
            applied = response.headers().firstValue("Preference-Applied").filter(v -> v.contains(PREFER_ASYNC))
                    .isPresent();
            retryAfter = response.headers().firstValue("Retry-After").orElse(null);
            JsonNode body = parse(response.body());
            if (status == 201 || status == 202 || status == 200) {
                paymentId = text(body, "id");
                paymentStatus = text(body, "status");
                if (AWAITING_CUSTOMER.equals(paymentStatus)) {
                    awaitingCustomer = true;
                    paymentStatus = "pending"; // unsettled until the customer authenticates (or never does)
                }
            } else if (status == 402) {
                paymentId = text(body, "paymentId");
                JsonNode payment = body.path("payment");
                paymentStatus = payment.hasNonNull("status") ? payment.get("status").asText() : "failed";
            } else if (status == 503) {
                String type = String.valueOf(text(body, "type"));
                String detail = String.valueOf(text(body, "detail"));
                boolean atCapacity = type.endsWith("provider-at-capacity");
                boolean queueDown = type.endsWith("queue-unavailable");
                unavailable = atCapacity || queueDown || type.endsWith("provider-unavailable")
                        || type.endsWith("store-unavailable");
                outcome = type.endsWith("store-unavailable") ? "503-store" : queueDown ? "503-queue"
                        : atCapacity ? "503-capacity" : !unavailable ? "503-gw"
                        : detail.contains("circuit breaker") ? "503-breaker" : "503";
            } else if (status == 409) {
                String type = text(body, "type");
                problem = type == null ? null : type.substring(type.lastIndexOf('/') + 1);
                outcome = problem == null ? outcome : outcome + "-" + problem;
                paymentId = response.headers().firstValue("Location")
                        .map(location -> location.substring(location.lastIndexOf('/') + 1))
                        .orElse(text(body, "paymentId"));
            }
        } catch (HttpTimeoutException e) {
            status = 0;
            outcome = "timeout";
        } catch (IOException e) {
            status = -1;
            outcome = "io-error";
        }
        long end = recorder.nowMs();
        recorder.attempts.add(new Recorder.Attempt(r.plan.index(), method, key, start, end - start, outcome, replayed,
                status == 409 ? null : paymentId, key != null && r.plan.respondAsync(), applied));
        if (awaitingCustomer) {
            prompt.show(r, paymentId);
        }
        return new Result(status, outcome, paymentStatus, paymentId, unavailable, problem, retryAfter, end);
    }

    static JsonNode parse(String body) {
        try {
            return body == null || body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static long retryAfter(Result res, long fallbackMs) {
        return retryAfterMs(res.retryAfter, fallbackMs);
    }

    /** A {@code Retry-After} header in seconds as ms (at most 10 s), or {@code fallbackMs} without a readable one. */
    static long retryAfterMs(String header, long fallbackMs) {
        if (header == null) {
            return fallbackMs;
        }
        try {
            return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Long.parseLong(header.trim()) * 1000));
        } catch (NumberFormatException e) {
            return fallbackMs;
        }
    }

    /** Exponential backoff with full jitter: 0..min(2 s, 200 ms * 2^n). */
    static long backoff(int failures) {
        long ceiling = Math.min(2000, 200L << Math.min(failures, 10));
        return ThreadLocalRandom.current().nextLong(ceiling + 1);
    }

    static void sleep(long ms) throws InterruptedException {
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }
}
