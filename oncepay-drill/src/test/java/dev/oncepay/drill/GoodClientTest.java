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
 * {@code order-mismatch} is an answer no drill client should get.
 */
class GoodClientTest {
    private static final String PROBLEMS = "https://oncepay.dev/problems/";

    /** A scripted answer: status, headers as name/value pairs, body. */
    private record Scripted(int status, List<String> headers, String body) {
    }

    private final Queue<Scripted> posts = new ConcurrentLinkedQueue<>();
    private final Queue<Scripted> gets = new ConcurrentLinkedQueue<>();
    private final Queue<String> requests = new ConcurrentLinkedQueue<>();
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
                behaviour, 0, true, null, null, Workload.AtPrompt.NONE));
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
    void anOrderMismatchIsUnexpected() throws Exception {
        Recorder.PaymentRecord r = order(Workload.Behaviour.NORMAL);
        posts.add(problem("order-mismatch", "pay_other", "Location", "/payments/pay_other"));
        submit(r, 0);
        assertEquals(1, requests.size(), requests.toString());
        assertEquals(1, r.unexpected.get());
        assertEquals("rejected", r.lastAnswers().get(0).paymentStatus());
        assertEquals(0, r.followed.get());
    }
}
