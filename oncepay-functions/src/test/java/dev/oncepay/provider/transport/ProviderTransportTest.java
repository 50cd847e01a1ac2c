package dev.oncepay.provider.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.ProviderCalls;
import dev.oncepay.provider.psp.PspAdapter;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.ProviderFault;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.ProviderReply;
import dev.oncepay.testing.FullListener;
import dev.oncepay.testing.ScriptedHttpServer;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.faulttolerance.api.TypedGuard;
import jakarta.inject.Inject;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The provider transport ({@link ProviderHttp}, the Quarkus REST client) against providers scripted at
 * the socket, where the client's own behaviour decides: what counts as never sent, what may
 * have executed, a body that breaks off or stalls after its status, a POST on a connection the provider
 * closed (never re-sent by the transport), and an attempt timeout's interrupt ending a stalled
 * exchange. Counts and events, no timings.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ProviderTransportTest {
    private static final String CHARGED = "{\"id\":\"ch_transport\",\"status\":\"succeeded\"}";
    /** A 200 whose body promises 100 bytes and brings 6: what follows decides how the body ends. */
    private static final String HEAD_AND_A_PIECE_OF_THE_BODY =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nRetry-After: 7\r\nContent-Length: 100\r\n\r\n{\"id\":";

    @Inject
    ProviderCalls calls;
    @Inject
    PspAdapter psp;

    private final ScriptedHttpServer.Started started = new ScriptedHttpServer.Started();

    @AfterEach
    void stop() throws Exception {
        started.close();
    }

    @Test
    void aConnectTimeoutIsNeverSent() {
        FullListener full = FullListener.open();
        started.closedAfterTheTest(full);

        ProviderFault fault = assertThrows(ProviderFault.class, () -> calls.charge(psp, endpoint(full.port()), payment(),
                calls.chargeCall(Duration.ofSeconds(5))));

        assertFalse(fault.maybeExecuted(), fault::toString);
        assertTrue(ProviderHttp.neverSent(fault), "the connect timeout is the cause: " + fault);
    }

    @Test
    void aRefusedConnectionIsNeverSent() throws Exception {
        int closedPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = free.getLocalPort();
        }

        ProviderFault fault = assertThrows(ProviderFault.class, () -> calls.charge(psp, endpoint(closedPort), payment(),
                calls.chargeCall(Duration.ofSeconds(5))));

        assertFalse(fault.maybeExecuted(), fault::toString);
    }

    @Test
    void aResetAfterTheRequestMayHaveExecutedAndIsNotSentAgain() {
        ScriptedHttpServer provider = started.start(connection -> {
            connection.readRequest();
            connection.reset();
        });

        ProviderFault fault = assertThrows(ProviderFault.class, () -> calls.charge(psp, endpoint(provider.port()), payment(),
                calls.chargeCall(Duration.ofSeconds(5))));

        assertTrue(fault.maybeExecuted(), fault::toString);
        assertEquals(1, provider.requests(), "a charge that may have executed is not sent again");
    }

    @Test
    void aBodyBrokenOffAfterTheStatusLeavesStatusAndHeaders() {
        ScriptedHttpServer provider = started.start(connection -> {
            connection.readRequest();
            connection.write(HEAD_AND_A_PIECE_OF_THE_BODY);
            connection.reset();
        });
        ProviderHttp http = new ProviderHttp(Duration.ofSeconds(1), Duration.ofSeconds(60));

        ProviderReply reply = http.post(url(provider.port()), Map.of(), "application/json", "{}");

        assertEquals(200, reply.status());
        assertEquals("7", reply.header("retry-after"));
        assertNull(reply.body(), "a body that broke off is no answer");
        ChargeResult charge = calls.charge(psp, endpoint(provider.port()), payment(), calls.chargeCall(Duration.ofSeconds(5)));
        assertEquals(ProviderOutcome.UNKNOWN, charge.outcome(), charge::toString);
    }

    @Test
    void aBodyThatStallsPastTheReadTimeoutLeavesStatusAndHeadersAndClosesTheConnection() throws Exception {
        CountDownLatch closedByClient = new CountDownLatch(1);
        ScriptedHttpServer provider = started.start(connection -> {
            connection.readRequest();
            connection.write(HEAD_AND_A_PIECE_OF_THE_BODY);
            if (connection.closedByClientWithin(Duration.ofSeconds(30))) {
                closedByClient.countDown();
            }
        });
        // The request's own timeout ends at the headers: only the body's bound can end this exchange.
        ProviderHttp http = new ProviderHttp(Duration.ofSeconds(1), Duration.ofMillis(300));

        ProviderReply reply = http.post(url(provider.port()), Map.of(), "application/json", "{}");

        assertEquals(200, reply.status());
        assertEquals("7", reply.header("retry-after"));
        assertNull(reply.body(), "a body that stalled is no answer");
        assertTrue(closedByClient.await(20, TimeUnit.SECONDS), "the stalled exchange closed its connection");
    }

    @Test
    void aPostOnAConnectionTheProviderClosedIsNotSentAgainByTheTransport() {
        // Answers the first request on a connection (keep-alive), then reads the next one and
        // closes without answering: to the client, a pooled connection that died under its request.
        ScriptedHttpServer provider = started.start(connection -> {
            connection.readRequest();
            connection.answer(CHARGED);
            connection.readRequest();
        });
        ProviderHttp http = new ProviderHttp(Duration.ofSeconds(1), Duration.ofSeconds(60));
        URI url = url(provider.port());

        assertEquals(200, http.post(url, Map.of(), "application/json", "{}").status());
        UncheckedIOException lost = assertThrows(UncheckedIOException.class, () -> http.post(url, Map.of(), "application/json", "{}"));

        assertFalse(ProviderHttp.neverSent(lost), "it was sent: " + lost);
        assertEquals(2, provider.requests(), "the second POST was sent once, not re-sent on a new connection");
        assertEquals(1, provider.connections());
    }

    @Test
    void anAttemptTimeoutInterruptsAStalledExchangeAndClosesItsConnection() throws Exception {
        CountDownLatch closedByClient = new CountDownLatch(1);
        // The first request is answered (it builds the client, so the attempt below cannot run out of
        // time before it is sent); the second stalls until the client closes the connection.
        ScriptedHttpServer provider = started.start(connection -> {
            connection.readRequest();
            connection.answer(CHARGED);
            connection.readRequestThenStall(closedByClient);
        });
        // A read timeout far beyond the wait below: only the interrupt can end this exchange in time.
        ProviderHttp http = new ProviderHttp(Duration.ofSeconds(1), Duration.ofSeconds(60));
        TypedGuard<ProviderReply> attempt = TypedGuard.create(ProviderReply.class)
                .withTimeout().duration(200, ChronoUnit.MILLIS).done().build();
        http.get(url(provider.port()), Map.of());

        assertThrows(TimeoutException.class, () -> attempt.call(() -> http.post(url(provider.port()), Map.of(), "application/json", "{}")));

        assertTrue(closedByClient.await(20, TimeUnit.SECONDS), "the interrupted exchange closed its connection");
        assertEquals(2, provider.requests());
        assertEquals(1, provider.connections());
    }

    @Test
    void afterForgettingItsConnectionsTheTransportOpensANewOne() {
        ScriptedHttpServer provider = started.start(connection -> {
            for (int i = 0; i < 3; i++) {
                connection.readRequest();
                connection.answer(CHARGED);
            }
        });
        ProviderHttp http = new ProviderHttp(Duration.ofSeconds(1), Duration.ofSeconds(60));
        URI url = url(provider.port());

        http.get(url, Map.of());
        http.get(url, Map.of());
        assertEquals(1, provider.connections(), "kept alive and reused");
        http.forgetConnections();
        http.get(url, Map.of());

        assertEquals(2, provider.connections(), "after a restore, no connection of the snapshot is reused");
        assertEquals(3, provider.requests());
    }

    private static URI url(int port) {
        return URI.create("http://127.0.0.1:" + port + "/v1/charges");
    }

    private static AccountEndpoint endpoint(int port) {
        return new AccountEndpoint(new ProviderAccount(PspAdapter.ID, "transport-" + UUID.randomUUID()),
                URI.create("http://127.0.0.1:" + port), "sk_transport");
    }

    private static Payment payment() {
        Instant now = Instant.now();
        String id = "pay_" + UUID.randomUUID().toString().replace("-", "");
        return new Payment(id, "tenant-transport", PaymentStatus.PENDING, 1, "EUR", "order-transport", null, null, null,
                null, now, now, 1, 0, new ProviderAccount(PspAdapter.ID, "transport"), now.plusSeconds(30),
                new PaymentInstrument(null, null), null);
    }
}
