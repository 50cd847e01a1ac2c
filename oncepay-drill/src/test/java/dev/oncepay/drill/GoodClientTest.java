package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The good client against a scripted payments API: a {@code 409} for its key in flight is asked
 * again under the same key; an order refusal ({@code order-in-progress}, {@code order-already-paid})
 * ends the paying and the client reads the payment its {@code Location} names until it is terminal;
 * {@code order-mismatch} is an answer no drill client should get; a queued order asks {@code Prefer:
 * respond-async} on every POST and polls its {@code 202} sooner. The refund client against the same
 * API: it asks again under its key until a final answer and follows a {@code 202}'s {@code Location},
 * and it refunds a payment only once a client was told it succeeded.
 */
class GoodClientTest {
    private static final String PROBLEMS = "https://oncepay.dev/problems/";

    /** A scripted answer: status, headers as name/value pairs, body. */
    private record Scripted(int status, List<String> headers, String body) {
    }

    private final Queue<Scripted> posts = new ConcurrentLinkedQueue<>();
    private final Queue<Scripted> gets = new ConcurrentLinkedQueue<>();
    private final Queue<String> requests = new ConcurrentLinkedQueue<>();
    /** Each request's {@code Prefer} header, "-" without one. */
    private final Queue<String> prefers = new ConcurrentLinkedQueue<>();
    private final Recorder recorder = new Recorder();
    private final HttpClient http = HttpClient.newHttpClient();
    private HttpServer server;
    private ShopperPrompt prompt;
    private GoodClient client;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/payments", exchange -> answer(exchange,
                exchange.getRequestMethod().equals("POST") ? posts.poll() : gets.poll()));
        server.start();
        String api = "http://127.0.0.1:" + server.getAddress().getPort();
        prompt = new ShopperPrompt(http, api, recorder);
        client = new GoodClient(http, api, recorder, null, 0, prompt);
    }

    @AfterEach
    void stop() {
        prompt.close();
        server.stop(0);
    }

    private void answer(HttpExchange exchange, Scripted scripted) throws IOException {
        requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                + exchange.getRequestHeaders().getFirst("Idempotency-Key"));
        prefers.add(String.valueOf(exchange.getRequestHeaders().getOrDefault("Prefer", List.of("-")).get(0)));
        Scripted s = scripted != null ? scripted : new Scripted(500, List.of(), "{}");
        for (int i = 0; i < s.headers().size(); i += 2) {
            exchange.getResponseHeaders().add(s.headers().get(i), s.headers().get(i + 1));
        }
        byte[] body = s.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(s.status(), body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private static Scripted problem(String type, String paymentId, String... headers) {
        return new Scripted(409, List.of(headers), "{\"type\":\"" + PROBLEMS + type + "\",\"status\":409"
                + (paymentId == null ? "" : ",\"paymentId\":\"" + paymentId + "\"") + "}");
    }

    private static Scripted payment(int status, String id, String paymentStatus) {
        return new Scripted(status, List.of(), "{\"id\":\"" + id + "\",\"status\":\"" + paymentStatus + "\"}");
    }

    private static Recorder.PaymentRecord order(Workload.Behaviour behaviour) {
        return new Recorder.PaymentRecord(new Workload.Plan(0, "merchant-a", "key-1", 4200, "EUR", "order_1",
                behaviour, 0, true, null, null, Workload.AtPrompt.NONE, false));
    }

    /** An order paid with {@code Prefer: respond-async} by a client that is no shopper: it retries its key. */
    private static Recorder.PaymentRecord queuedOrder() {
        return new Recorder.PaymentRecord(new Workload.Plan(0, "merchant-a", "key-1", 4200, "EUR", "order_1",
                Workload.Behaviour.NORMAL, 0, false, null, null, Workload.AtPrompt.NONE, true));
    }

    private void submit(Recorder.PaymentRecord r, int submitter) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        client.submit(r, submitter, until, until);
    }

    @Test
    void anOrderInProgressIsFollowedToItsOutcomeAndNeverPaidAgain() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.DOUBLE_CLICK);
        posts.add(problem("order-in-progress", "pay_bound", "Location", "/payments/pay_bound", "Retry-After", "1"));
        gets.add(payment(200, "pay_bound", "pending"));
        gets.add(payment(200, "pay_bound", "requires_action"));
        gets.add(payment(200, "pay_bound", "pending"));
        gets.add(payment(200, "pay_bound", "succeeded"));
        submit(r, 1);
        assertEquals(List.of("POST /payments key-1-click", "GET /payments/pay_bound null",
                "GET /payments/pay_bound null", "GET /payments/pay_bound null", "GET /payments/pay_bound null"),
                List.copyOf(requests), "one POST, then only reads of the order's payment");
        assertEquals(new Recorder.Answer(200, "succeeded", "pay_bound", r.lastAnswers().get(1).atMs(), true),
                r.lastAnswers().get(1));
        assertEquals(1, r.followed.get());
        assertEquals(0, r.unexpected.get());
        Recorder.Attempt refused = recorder.attempts.peek();
        assertEquals("409-order-in-progress", refused.outcome());
        assertNull(refused.paymentId(), "the bound payment is another key's, not this attempt's");
    }

    @Test
    void aPaidOrderIsFollowedOnce() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.NORMAL);
        posts.add(problem("order-already-paid", "pay_paid", "Location", "/payments/pay_paid"));
        gets.add(payment(200, "pay_paid", "succeeded"));
        submit(r, 0);
        assertEquals(2, requests.size(), requests.toString());
        assertEquals("succeeded", r.lastAnswers().get(0).paymentStatus());
        assertTrue(r.lastAnswers().get(0).followed());
        assertTrue(r.firstAnswerMs >= 0, "following is the order's answer");
    }

    @Test
    void aFollowedPaymentThatIsGoneIsNotFoundAndLeftToTheSettlePhase() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.NORMAL);
        posts.add(problem("order-in-progress", "pay_gone", "Location", "/payments/pay_gone", "Retry-After", "1"));
        gets.add(new Scripted(404, List.of(), "{\"type\":\"" + PROBLEMS + "not-found\"}"));
        submit(r, 0);
        assertEquals(new Recorder.Answer(404, "not_found", "pay_gone", r.lastAnswers().get(0).atMs(), true),
                r.lastAnswers().get(0));
        assertTrue(!r.settledForClient(java.util.Set.of()));
    }

    @Test
    void aKeyInFlightIsAskedAgainUnderTheSameKey() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.NORMAL);
        posts.add(problem("request-in-flight", null, "Retry-After", "0"));
        posts.add(payment(201, "pay_1", "succeeded"));
        submit(r, 0);
        assertEquals(List.of("POST /payments key-1", "POST /payments key-1"), List.copyOf(requests));
        assertEquals("succeeded", r.lastAnswers().get(0).paymentStatus());
        assertEquals(0, r.followed.get());
        assertEquals(List.of("409-request-in-flight", "201"), recorder.attempts.stream().map(Recorder.Attempt::outcome)
                .toList());
    }

    @Test
    void aShopperPaysAgainUnderAFreshKeyAfterEach5xx() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.NORMAL);
        posts.add(new Scripted(503, List.of("Retry-After", "0"), "{\"type\":\"" + PROBLEMS
                + "provider-unavailable\",\"detail\":\"circuit breaker open\"}"));
        posts.add(new Scripted(502, List.of(), "{\"message\":\"Internal server error\"}"));
        posts.add(payment(201, "pay_1", "succeeded"));
        submit(r, 0);
        assertEquals(List.of("POST /payments key-1", "POST /payments key-1-again-1", "POST /payments key-1-again-2"),
                List.copyOf(requests));
        assertEquals(List.of("key-1", "key-1-again-1", "key-1-again-2"), r.keys);
        assertEquals(List.of("503-breaker", "502"), List.of(r.abandoned.get("key-1").outcome(),
                r.abandoned.get("key-1-again-1").outcome()));
    }

    @Test
    void aQueuedPaymentIsAskedForAsynchronouslyAndPolledSoonerToItsOutcome() throws Exception {
        Recorder.PaymentRecord r = queuedOrder();
        posts.add(new Scripted(503, List.of("Retry-After", "0"), "{\"type\":\"" + PROBLEMS + "queue-unavailable\"}"));
        posts.add(new Scripted(202, List.of("Preference-Applied", "respond-async", "Location", "/payments/pay_1",
                "Retry-After", "2"), "{\"id\":\"pay_1\",\"status\":\"pending\"}"));
        gets.add(payment(200, "pay_1", "pending"));
        gets.add(payment(200, "pay_1", "succeeded"));
        long started = System.nanoTime();
        submit(r, 0);
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertEquals(List.of("POST /payments key-1", "POST /payments key-1", "GET /payments/pay_1 null",
                "GET /payments/pay_1 null"), List.copyOf(requests), "the same key again after the queue's 503");
        assertEquals(List.of("respond-async", "respond-async", "-", "-"), List.copyOf(prefers));
        assertEquals("succeeded", r.lastAnswers().get(0).paymentStatus());
        assertTrue(tookMs < 1000, "polled after 200 and 400 ms, not a second each: " + tookMs + " ms");
        List<Recorder.Attempt> attempts = List.copyOf(recorder.attempts);
        assertEquals(List.of("503-queue", "202", "200", "200"), attempts.stream().map(Recorder.Attempt::outcome).toList());
        assertEquals(List.of(true, true, false, false), attempts.stream().map(Recorder.Attempt::respondAsync).toList());
        assertEquals(List.of(false, true, false, false), attempts.stream().map(Recorder.Attempt::applied).toList());
        assertTrue(r.unknownAtMs >= 0 && r.terminalAtMs >= r.unknownAtMs, "202 -> outcome is measured");
    }

    @Test
    void aReplayThatFindsTheOrderPaidByAnotherKeyFollowsThatPayment() throws Exception {
        Recorder.PaymentRecord r = queuedOrder();
        posts.add(new Scripted(202, List.of("Preference-Applied", "respond-async", "Location", "/payments/pay_1"),
                "{\"id\":\"pay_1\",\"status\":\"pending\"}"));
        gets.add(payment(200, "pay_1", "pending"));
        gets.add(payment(200, "pay_1", "pending"));
        posts.add(problem("order-already-paid", "pay_bound", "Location", "/payments/pay_bound"));
        gets.add(payment(200, "pay_bound", "succeeded"));
        submit(r, 0);
        assertEquals(List.of("POST /payments key-1", "GET /payments/pay_1 null", "GET /payments/pay_1 null",
                "POST /payments key-1", "GET /payments/pay_bound null"), List.copyOf(requests),
                "no more replays of the refused key: only reads of the order's payment");
        assertEquals(new Recorder.Answer(200, "succeeded", "pay_bound", r.lastAnswers().get(0).atMs(), true),
                r.lastAnswers().get(0));
        assertEquals(1, r.followed.get());
    }

    @Test
    void aQueuedChargesPollsStartAt200MsAndGrowToASecond() {
        assertEquals(List.of(200L, 400L, 800L, 1000L, 1000L), java.util.stream.IntStream.range(0, 5)
                .mapToObj(n -> GoodClient.pollDelayMs(true, n)).toList());
        assertEquals(1000L, GoodClient.pollDelayMs(false, 0), "a charge's unknown outcome takes seconds");
    }

    @Test
    void onlyTheGatewaysErrorsTimeoutsAndLostConnectionsLeaveARequestsFateUnknown() {
        for (String outcome : List.of("502", "504", "500", "503-gw", "timeout", "io-error")) {
            assertTrue(GoodClient.unanswered(outcome), outcome);
        }
        for (String outcome : List.of("202", "201", "402", "503-queue", "503-store", "503-capacity", "503",
                "409-order-in-progress", "409-request-in-flight")) {
            assertTrue(!GoodClient.unanswered(outcome), outcome);
        }
    }

    @Test
    void anOrderMismatchIsUnexpected() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.NORMAL);
        posts.add(problem("order-mismatch", "pay_other", "Location", "/payments/pay_other"));
        submit(r, 0);
        assertEquals(1, requests.size(), requests.toString());
        assertEquals(1, r.unexpected.get());
        assertEquals("rejected", r.lastAnswers().get(0).paymentStatus());
        assertEquals(0, r.followed.get());
    }

    private static Scripted refund(int status, String id, String refundStatus, String... headers) {
        return new Scripted(status, List.of(headers), "{\"id\":\"" + id + "\",\"paymentId\":\"pay_1\",\"status\":\""
                + refundStatus + "\",\"amount\":1400}");
    }

    private static List<RefundRecord> refunds(Recorder.PaymentRecord order, RefundWorkload.Plan plan) {
        return plan.requests().stream().map(q -> new RefundRecord(order.plan, q)).toList();
    }

    @Test
    void aRefundIsAskedAgainUnderItsKeyAndItsPendingAnswerFollowedToItsLocation() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.NORMAL);
        r.answered(0, new Recorder.Answer(201, "succeeded", "pay_1", 0));
        RefundWorkload.Plan plan = new RefundWorkload.Plan(0, RefundWorkload.Kind.ONCE, false,
                List.of(new RefundWorkload.Request(0, 0, "key-1-refund-0", 1400L, 1, 0)));
        List<RefundRecord> records = refunds(r, plan);
        posts.add(new Scripted(503, List.of("Retry-After", "0"), "{\"type\":\"" + PROBLEMS + "provider-unavailable\"}"));
        posts.add(new Scripted(409, List.of("Retry-After", "0"), "{\"type\":\"" + PROBLEMS + "request-in-flight\"}"));
        posts.add(refund(202, "ref_1", "pending", "Location", "/payments/pay_1/refunds/ref_1", "Retry-After", "1"));
        gets.add(refund(200, "ref_1", "pending"));
        gets.add(refund(200, "ref_1", "succeeded"));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        new RefundClient(http, "http://127.0.0.1:" + server.getAddress().getPort(), recorder)
                .refund(r, plan, records, java.util.concurrent.Executors.newCachedThreadPool(), until, until, until);
        assertEquals(List.of("POST /payments/pay_1/refunds key-1-refund-0", "POST /payments/pay_1/refunds key-1-refund-0",
                "POST /payments/pay_1/refunds key-1-refund-0", "GET /payments/pay_1/refunds/ref_1 null",
                "GET /payments/pay_1/refunds/ref_1 null"), List.copyOf(requests));
        RefundRecord asked = records.get(0);
        assertEquals(List.of("503 provider-unavailable", "409 request-in-flight", "202", "200", "200"),
                asked.answers.stream().map(RefundRecord.Answer::outcome).toList());
        assertEquals("succeeded", asked.lastAnswers().get(0).refundStatus());
        assertTrue(asked.settled());
        assertTrue(asked.answers.get(2).accepted());
    }

    @Test
    void threeRefundsAreReleasedTogetherOnceThePaymentSucceeded() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.NORMAL);
        RefundWorkload.Plan plan = new RefundWorkload.Plan(0, RefundWorkload.Kind.CONCURRENT, true, List.of(
                new RefundWorkload.Request(0, 0, "k0", 2100L, 1, 0), new RefundWorkload.Request(0, 1, "k1", 2100L, 1, 0),
                new RefundWorkload.Request(0, 2, "k2", 2100L, 1, 0)));
        List<RefundRecord> records = refunds(r, plan);
        posts.add(refund(201, "ref_a", "succeeded"));
        posts.add(refund(201, "ref_b", "succeeded"));
        posts.add(new Scripted(409, List.of(), "{\"type\":\"" + PROBLEMS + "refund-exceeds-charge\",\"amountRefundable\":0}"));
        java.util.concurrent.ExecutorService helpers = java.util.concurrent.Executors.newCachedThreadPool();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        java.util.concurrent.Future<?> refunding = helpers.submit(() -> {
            new RefundClient(http, "http://127.0.0.1:" + server.getAddress().getPort(), recorder)
                    .refund(r, plan, records, helpers, until, until, until);
            return null;
        });
        Thread.sleep(500);
        assertTrue(requests.isEmpty(), "no refund before the payment succeeded: " + requests);
        r.answered(0, new Recorder.Answer(201, "succeeded", "pay_1", 0));
        refunding.get();
        assertEquals(3, requests.size(), requests.toString());
        assertEquals(List.of("201", "201", "409 refund-exceeds-charge"), records.stream()
                .map(q -> q.lastAnswers().get(0).outcome()).sorted().toList());
        assertTrue(records.stream().allMatch(q -> "pay_1".equals(q.paymentId) && q.settled()));
        helpers.shutdownNow();
    }
}
