package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.http.HttpApiResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The local API Gateway over real HTTP with a stand-in function: what reaches the function, and
 * what the client gets for its answers, its errors and its silence.
 */
class ApiGatewayTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicReference<String> invokedFunction = new AtomicReference<>();
    private final AtomicReference<JsonNode> invokedWith = new AtomicReference<>();
    private ApiGateway gateway;

    private void start(Function<JsonNode, CompletableFuture<InvocationResult>> function, Duration timeout)
            throws Exception {
        gateway = new ApiGateway(0, HttpApiV2.oncepayRoutes(), (name, event) -> {
            invokedFunction.set(name);
            try {
                JsonNode e = JSON.readTree(event);
                invokedWith.set(e);
                Invocation invocation = new Invocation(event, "trace");
                invocation.start(); // a sandbox runs it at once
                function.apply(e).whenComplete((r, failure) -> invocation.complete(r));
                return invocation;
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }, name -> timeout);
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private static CompletableFuture<InvocationResult> answer(HttpApiResponse response) {
        try {
            return CompletableFuture.completedFuture(new InvocationResult.Success(JSON.writeValueAsBytes(response)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + gateway.port() + path);
    }

    @Test
    void aRequestReachesItsFunctionAsAV2EventAndItsAnswerReachesTheClient() throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Idempotent-Replayed", "true");
        headers.put("Location", "/payments/pay_1");
        start(e -> answer(new HttpApiResponse(201, headers, "{\"id\":\"pay_1\"}", false)), Duration.ofSeconds(5));

        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/payments?x=1"))
                .header("Idempotency-Key", "k1").header("X-Tenant-Id", "merchant-a")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")));

        assertEquals(201, r.statusCode());
        assertEquals("{\"id\":\"pay_1\"}", r.body());
        assertEquals("true", r.headers().firstValue("Idempotent-Replayed").orElse(null));
        assertEquals("/payments/pay_1", r.headers().firstValue("Location").orElse(null));
        assertNotNull(r.headers().firstValue("apigw-requestid").orElse(null));

        assertEquals("charge", invokedFunction.get());
        JsonNode event = invokedWith.get();
        assertEquals("POST /payments", event.get("routeKey").asText());
        assertEquals("x=1", event.get("rawQueryString").asText());
        assertEquals("k1", event.at("/headers/idempotency-key").asText());
        assertEquals("merchant-a", event.at("/requestContext/authorizer/jwt/claims/tenant_id").asText());
        assertEquals("{\"amount\":1}", event.get("body").asText());
        assertEquals(r.headers().firstValue("apigw-requestid").get(), event.at("/requestContext/requestId").asText());
    }

    @Test
    void walletRoutesGoToTheChargeFunctionBehindTheAuthorizer() throws Exception {
        start(e -> answer(new HttpApiResponse(201, Map.of(), "{}", false)), Duration.ofSeconds(5));
        for (String operation : new String[] {"credits", "debits"}) {
            HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/wallets/w_1/" + operation))
                    .header("Idempotency-Key", "k1").header("X-Tenant-Id", "merchant-a")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")));
            assertEquals(201, r.statusCode());
            assertEquals("charge", invokedFunction.get());
            assertEquals("POST /wallets/{walletId}/" + operation, invokedWith.get().path("routeKey").asText());
            assertEquals("w_1", invokedWith.get().at("/pathParameters/walletId").asText());
            assertEquals("merchant-a", invokedWith.get().at("/requestContext/authorizer/jwt/claims/tenant_id").asText());
        }
        send(HttpRequest.newBuilder(uri("/wallets/w_1?limit=2")).header("X-Tenant-Id", "merchant-a").GET());
        assertEquals("GET /wallets/{walletId}", invokedWith.get().path("routeKey").asText());
        assertEquals("limit=2", invokedWith.get().path("rawQueryString").asText());

        invokedFunction.set(null);
        HttpResponse<String> anonymous = send(HttpRequest.newBuilder(uri("/wallets/w_1")).GET());
        assertEquals(401, anonymous.statusCode());
        assertNull(invokedFunction.get(), "the authorizer refused: the function never ran");
        assertEquals(404, send(HttpRequest.newBuilder(uri("/wallets/w_1/transfers"))
                .header("X-Tenant-Id", "merchant-a").POST(HttpRequest.BodyPublishers.noBody())).statusCode());
    }

    @Test
    void webhooksGoToTheWebhookFunctionWithoutAnAuthorizer() throws Exception {
        start(e -> answer(new HttpApiResponse(200, Map.of(), "", false)), Duration.ofSeconds(5));
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/webhooks/sim"))
                .header("Payment-Signature", "t=1,v1=00").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"evt_1\"}")));
        assertEquals(200, r.statusCode());
        assertEquals("webhook", invokedFunction.get());
        assertEquals("sim", invokedWith.get().at("/pathParameters/provider").asText());
        assertTrue(invokedWith.get().at("/requestContext/authorizer").isMissingNode());
    }

    @Test
    void operatorRoutesGoToTheChargeFunctionWithTheOperatorHeaderAndNoMerchantToken() throws Exception {
        start(e -> answer(new HttpApiResponse(200, Map.of(), "{}", false)), Duration.ofSeconds(5));
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/admin/payments?status=needs_review&limit=5"))
                .header("X-Operator-Id", "alice").header("X-Tenant-Id", "merchant-a").GET());
        assertEquals(200, r.statusCode());
        assertEquals("charge", invokedFunction.get());
        assertEquals("status=needs_review&limit=5", invokedWith.get().path("rawQueryString").asText());
        assertEquals("alice", invokedWith.get().at("/headers/x-operator-id").asText());
        assertTrue(invokedWith.get().at("/requestContext/authorizer").isMissingNode(), "never a merchant's claims");

        send(HttpRequest.newBuilder(uri("/admin/payments/pay_1/resolve")).header("X-Operator-Id", "alice")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertEquals("POST /admin/payments/{id}/resolve", invokedWith.get().path("routeKey").asText());
        assertEquals("pay_1", invokedWith.get().at("/pathParameters/id").asText());
    }

    @Test
    void withoutATenantTheAuthorizerRefusesAndTheFunctionIsNotCalled() throws Exception {
        start(e -> answer(new HttpApiResponse(200, Map.of(), "", false)), Duration.ofSeconds(5));
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/payments/pay_1")).GET());
        assertEquals(401, r.statusCode());
        assertEquals("{\"message\":\"Unauthorized\"}", r.body());
        assertNull(invokedFunction.get());
    }

    @Test
    void unknownRoutesAre404WithoutAnInvocation() throws Exception {
        start(e -> answer(new HttpApiResponse(200, Map.of(), "", false)), Duration.ofSeconds(5));
        assertEquals(404, send(HttpRequest.newBuilder(uri("/nope")).GET()).statusCode());
        HttpResponse<String> wrongMethod = send(HttpRequest.newBuilder(uri("/payments")).header("X-Tenant-Id", "t").GET());
        assertEquals(404, wrongMethod.statusCode());
        assertEquals("{\"message\":\"Not Found\"}", wrongMethod.body());
        assertNull(invokedFunction.get());
    }

    @Test
    void aFunctionErrorOrAMalformedAnswerIs502() throws Exception {
        start(e -> CompletableFuture.completedFuture(
                InvocationResult.failure("Runtime.ExitError", "Runtime exited with error: exit status 1")),
                Duration.ofSeconds(5));
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/payments/p")).header("X-Tenant-Id", "t").GET());
        assertEquals(502, r.statusCode());
        assertEquals("{\"message\":\"Internal Server Error\"}", r.body());
        gateway.close();

        start(e -> CompletableFuture.completedFuture(new InvocationResult.Success("oops".getBytes())),
                Duration.ofSeconds(5));
        assertEquals(502, send(HttpRequest.newBuilder(uri("/payments/p")).header("X-Tenant-Id", "t").GET()).statusCode());
    }

    @Test
    void aFunctionThatDoesNotAnswerWithinTheIntegrationTimeoutIs503() throws Exception {
        start(e -> new CompletableFuture<>(), Duration.ofMillis(300));
        long started = System.nanoTime();
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/payments/p")).header("X-Tenant-Id", "t").GET());
        assertEquals(503, r.statusCode());
        assertEquals("{\"message\":\"Service Unavailable\"}", r.body());
        assertTrue((System.nanoTime() - started) / 1_000_000 >= 300);
    }

    /**
     * Lambda starts a synchronous invocation at once; locally it may wait for a busy sandbox. The
     * integration timeout runs from the start, and an invocation no sandbox took in time is given up
     * (503) and never runs — so no run begins, or goes on, after its caller was answered.
     */
    @Test
    void theIntegrationTimeoutRunsFromTheStartAndAnInvocationNeverStartedIsGivenUp() throws Exception {
        BlockingQueue<Invocation> queued = new LinkedBlockingQueue<>();
        gateway = new ApiGateway(0, HttpApiV2.oncepayRoutes(), (name, event) -> {
            Invocation invocation = new Invocation(event, "trace");
            queued.add(invocation);
            return invocation;
        }, name -> Duration.ofMillis(1500));

        CompletableFuture<HttpResponse<String>> late = CompletableFuture.supplyAsync(() -> {
            try {
                return send(HttpRequest.newBuilder(uri("/payments/p")).header("X-Tenant-Id", "t").GET());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Invocation waited = queued.poll(5, TimeUnit.SECONDS);
        Thread.sleep(1000); // waits for a sandbox for most of the integration timeout
        assertTrue(waited.start(), "a sandbox takes it");
        Thread.sleep(700); // runs past the request's first 1500 ms, well inside 1500 ms of its start
        waited.complete(new InvocationResult.Success(JSON.writeValueAsBytes(
                new HttpApiResponse(200, Map.of(), "{\"ran\":true}", false))));
        assertEquals(200, late.get(5, TimeUnit.SECONDS).statusCode(), "answered: the clock ran from the start");

        HttpResponse<String> neverStarted = send(HttpRequest.newBuilder(uri("/payments/q")).header("X-Tenant-Id", "t")
                .GET());
        assertEquals(503, neverStarted.statusCode());
        Invocation abandoned = queued.poll(5, TimeUnit.SECONDS);
        assertTrue(abandoned.isDone(), "given up");
        assertFalse(abandoned.start(), "no sandbox may start it any more");
    }

    /** The local run's own routes: the schedule's event on demand; nothing else under /_local/ reaches a function. */
    @Test
    void theScheduleRouteSendsTheEventBridgeEventAndAnswersWithItsResult() throws Exception {
        start(event -> CompletableFuture.completedFuture(new InvocationResult.Success("{\"swept\":0}".getBytes())),
                Duration.ofSeconds(5));

        HttpResponse<String> fired = send(HttpRequest.newBuilder(uri("/_local/schedule/reconcile"))
                .POST(HttpRequest.BodyPublishers.noBody()));

        assertEquals(200, fired.statusCode());
        assertTrue(JSON.readTree(fired.body()).path("ok").asBoolean(), fired.body());
        assertEquals("reconcile", invokedFunction.get());
        assertEquals("Scheduled Event", invokedWith.get().path("detail-type").asText());
        assertEquals("aws.events", invokedWith.get().path("source").asText());

        invokedFunction.set(null);
        assertEquals(404, send(HttpRequest.newBuilder(uri("/_local/payments")).GET()).statusCode());
        assertEquals(200, send(HttpRequest.newBuilder(uri("/_local/sandboxes")).GET()).statusCode());
        assertEquals(null, invokedFunction.get(), "no function invoked");
    }
}
