package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A merchant client refunding through oncepay ({@code POST /payments/{paymentId}/refunds}): one key
 * per refund request, reused on every retry (timeouts, 5xx, oncepay's {@code 503}s, a {@code 409
 * request-in-flight}, with the drill's backoff and {@code Retry-After}) until a final answer; a
 * {@code 202} is followed to its {@code Location} and polled until final or its time is up. Every
 * answer is recorded on the request's {@link RefundRecord}.
 */
final class RefundClient {
    private final HttpClient http;
    private final String api;
    private final Recorder recorder;

    RefundClient(HttpClient http, String api, Recorder recorder) {
        this.http = http;
        this.api = api;
        this.recorder = recorder;
    }

    /**
     * Waits (until {@code waitUntilNanos}) for a succeeded answer to {@code order}'s payment, then
     * sends the plan's requests: one after the other, or released together at one instant. An order
     * whose payment did not succeed in that time is not refunded.
     */
    void refund(Recorder.PaymentRecord order, RefundWorkload.Plan plan, List<RefundRecord> records,
            ExecutorService helpers, long waitUntilNanos, long retryUntilNanos, long pollUntilNanos) throws Exception {
        String paymentId = succeededPayment(order);
        while (paymentId == null && System.nanoTime() < waitUntilNanos) {
            Thread.sleep(200);
            paymentId = succeededPayment(order);
        }
        if (paymentId == null) {
            return;
        }
        for (RefundRecord r : records) {
            r.paymentId = paymentId;
        }
        if (!plan.together()) {
            for (RefundRecord r : records) {
                send(r, helpers, retryUntilNanos, pollUntilNanos);
            }
            return;
        }
        CyclicBarrier together = new CyclicBarrier(records.size());
        List<Future<?>> others = new ArrayList<>();
        for (RefundRecord r : records.subList(1, records.size())) {
            others.add(helpers.submit(() -> {
                together.await(10, TimeUnit.SECONDS);
                send(r, helpers, retryUntilNanos, pollUntilNanos);
                return null;
            }));
        }
        together.await(10, TimeUnit.SECONDS);
        send(records.get(0), helpers, retryUntilNanos, pollUntilNanos);
        for (Future<?> f : others) {
            f.get();
        }
    }

    /** The payment a client of the order was told succeeded, or null. */
    private static String succeededPayment(Recorder.PaymentRecord order) {
        return order.lastAnswers().stream().filter(a -> a != null && "succeeded".equals(a.paymentStatus())
                && a.paymentId() != null).map(Recorder.Answer::paymentId).findFirst().orElse(null);
    }

    /** Submitter 0, and a second submitter of the same key a moment later when the request has one. */
    private void send(RefundRecord r, ExecutorService helpers, long retryUntilNanos, long pollUntilNanos)
            throws Exception {
        Future<?> twin = null;
        if (r.request.submitters() > 1) {
            twin = helpers.submit(() -> {
                Thread.sleep(r.request.secondSubmitDelayMs());
                submit(r, 1, retryUntilNanos, pollUntilNanos);
                return null;
            });
        }
        submit(r, 0, retryUntilNanos, pollUntilNanos);
        if (twin != null) {
            twin.get();
        }
    }

    /** Asks under the request's key until a final answer or {@code retryUntilNanos}; polls a 202's refund. */
    void submit(RefundRecord r, int submitter, long retryUntilNanos, long pollUntilNanos) throws InterruptedException {
        int failures = 0;
        while (System.nanoTime() < retryUntilNanos) {
            Sent sent = post(r);
            r.answered(submitter, sent.answer);
            RefundRecord.Answer a = sent.answer;
            if (a.pending()) {
                poll(r, submitter, sent.location, pollUntilNanos);
                return;
            }
            if (a.settled()) {
                return;
            }
            if (a.status() == 409 || a.status() == 503) {
                GoodClient.sleep(GoodClient.retryAfterMs(sent.retryAfter, a.status() == 409 ? 1000 : 5000));
            } else {
                GoodClient.sleep(GoodClient.backoff(failures++));
            }
        }
    }

    /** Polls a pending refund (its {@code Location}) until it is final or {@code untilNanos}. */
    void poll(RefundRecord r, int submitter, String location, long untilNanos) throws InterruptedException {
        while (System.nanoTime() < untilNanos) {
            GoodClient.sleep(1000);
            Sent sent = send(r, "GET", HttpRequest.newBuilder(URI.create(api + location)).GET());
            if (sent.answer.status() == 200) {
                r.answered(submitter, sent.answer);
                if (!sent.answer.pending()) {
                    return;
                }
            }
        }
    }

    /** Polls the last pending answer of {@code submitter}, whose Location is the refund's own path. */
    void poll(RefundRecord r, int submitter, long untilNanos) throws InterruptedException {
        RefundRecord.Answer last = r.lastAnswers().get(submitter);
        poll(r, submitter, location(r.paymentId, last.refundId()), untilNanos);
    }

    static String location(String paymentId, String refundId) {
        return "/payments/" + paymentId + "/refunds/" + refundId;
    }

    record Sent(RefundRecord.Answer answer, String location, String retryAfter) {
    }

    private Sent post(RefundRecord r) throws InterruptedException {
        return send(r, "POST", HttpRequest.newBuilder(URI.create(api + "/payments/" + r.paymentId + "/refunds"))
                .header("Idempotency-Key", r.key())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(r.request.body(r.order.reference()))));
    }

    private Sent send(RefundRecord r, String method, HttpRequest.Builder request) throws InterruptedException {
        try {
            return read(r.paymentId, method, http.send(request.timeout(GoodClient.REQUEST_TIMEOUT)
                    .header("X-Tenant-Id", r.tenant()).build(), HttpResponse.BodyHandlers.ofString()), recorder.nowMs());
        } catch (HttpTimeoutException e) {
            return new Sent(new RefundRecord.Answer(method, 0, null, null, null, null, false, recorder.nowMs()), null, null);
        } catch (IOException e) {
            return new Sent(new RefundRecord.Answer(method, -1, null, null, null, null, false, recorder.nowMs()), null,
                    null);
        }
    }

    /**
     * What an answer says: a refund JSON ({@code 2xx}), a {@code 402}'s {@code refundId} and
     * {@code refund}, or a problem's type; its {@code Location} (for a refund without one, the
     * refund's own path) and {@code Retry-After}.
     */
    static Sent read(String paymentId, String method, HttpResponse<String> response, long atMs) {
        int status = response.statusCode();
        JsonNode body = GoodClient.parse(response.body());
        String type = GoodClient.text(body, "type");
        JsonNode refund = status == 402 ? body.path("refund") : status < 300 ? body : body.path("none");
        String refundId = status == 402 ? GoodClient.text(body, "refundId") : GoodClient.text(refund, "id");
        String refundStatus = status == 402 && !refund.hasNonNull("status") ? "failed" : GoodClient.text(refund, "status");
        RefundRecord.Answer answer = new RefundRecord.Answer(method, status,
                status < 400 || type == null ? null : type.substring(type.lastIndexOf('/') + 1), refundId, refundStatus,
                refund.path("amount").canConvertToLong() ? refund.path("amount").asLong() : null,
                response.headers().firstValue("Idempotent-Replayed").isPresent(), atMs);
        String location = response.headers().firstValue("Location")
                .orElse(refundId == null || paymentId == null ? null : location(paymentId, refundId));
        return new Sent(answer, location, response.headers().firstValue("Retry-After").orElse(null));
    }
}
