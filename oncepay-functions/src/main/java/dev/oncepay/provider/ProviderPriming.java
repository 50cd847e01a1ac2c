package dev.oncepay.provider;

import dev.oncepay.http.RawHttpRequest;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.ProviderCalls;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.ChargeResult;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The provider half of priming: one charge per adapter through {@link ProviderCalls} — its guards,
 * the fleet breaker's read, the HTTP client ({@link ProviderHttp}) and its connection, serialisation and the adapter's reading
 * of the answer — against a provider that answers on loopback inside this sandbox. Nothing leaves
 * the sandbox and nothing is written: the account is a priming account whose breaker item never
 * exists, and a successful call writes no breaker state. Without it a restored sandbox's first
 * charge still loaded and linked the whole provider path (about 1,000 classes here).
 */
@ApplicationScoped
public class ProviderPriming {
    /** The account the priming calls are made as; no payment is ever charged through it. */
    static final String ACCOUNT = "oncepay-priming";
    /** Well formed but never issued: a payment id is a version-4 UUID, whose 13th hex digit is 4. */
    public static final String PAYMENT_ID = "pay_" + "0".repeat(32);

    private final ProviderAdapters adapters;
    private final ProviderCalls calls;

    public ProviderPriming(ProviderAdapters adapters, ProviderCalls calls) {
        this.adapters = adapters;
        this.calls = calls;
    }

    /** Charges once through each adapter at a loopback provider; what each call ended with. */
    public List<String> chargeEachAdapter() {
        List<String> done = new ArrayList<>();
        try (LoopbackProvider provider = LoopbackProvider.start()) {
            for (String id : adapters.ids()) {
                ProviderAccount account = new ProviderAccount(id, ACCOUNT);
                AccountEndpoint endpoint = new AccountEndpoint(account, provider.url(), "priming-not-a-key");
                ChargeResult result = calls.charge(adapters.of(id), endpoint, payment(account),
                        calls.chargeCall(Duration.ofSeconds(2)));
                done.add(id + " " + result.outcome());
            }
        }
        return done;
    }

    private static Payment payment(ProviderAccount account) {
        Instant now = Instant.now();
        return new Payment(PAYMENT_ID, "oncepay-priming", PaymentStatus.PENDING, 1, "EUR", "oncepay-priming", null, null,
                null, null, now, now, 1, 0, account, now.plusSeconds(30),
                new PaymentInstrument("pm_card_visa", null), null);
    }

    /**
     * An HTTP/1.1 server on 127.0.0.1 that answers each request once, {@code Connection: close}, with
     * the charge the priming payment asked for, in the shape of the API the path names: the generic
     * PSP's {@code /v1/charges} or Stripe's {@code /v1/payment_intents}. Closing the connection
     * leaves no pooled connection to a port that is gone after the priming.
     */
    static final class LoopbackProvider implements AutoCloseable {
        private final ServerSocket socket;
        private final Thread server;

        private LoopbackProvider(ServerSocket socket) {
            this.socket = socket;
            this.server = new Thread(this::serve, "priming-loopback-provider");
            server.setDaemon(true);
            server.start();
        }

        static LoopbackProvider start() {
            try {
                return new LoopbackProvider(new ServerSocket(0, 8, InetAddress.getLoopbackAddress()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open a loopback port for priming", e);
            }
        }

        URI url() {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }

        private void serve() {
            while (!socket.isClosed()) {
                try (Socket connection = socket.accept()) {
                    connection.setSoTimeout(2000);
                    String path = RawHttpRequest.read(connection.getInputStream()).path();
                    byte[] body = answerTo(path).getBytes(StandardCharsets.UTF_8);
                    OutputStream out = connection.getOutputStream();
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                            + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(body);
                    out.flush();
                } catch (IOException closedOrBroken) {
                    // closed by close(), or a request that broke off: the priming call reports it
                }
            }
        }

        private static String answerTo(String path) {
            if (path.startsWith("/v1/payment_intents")) {
                return "{\"id\":\"pi_oncepaypriming\",\"object\":\"payment_intent\",\"status\":\"succeeded\",\"amount\":1,"
                        + "\"currency\":\"eur\",\"metadata\":{\"oncepay_payment_id\":\"" + PAYMENT_ID + "\"}}";
            }
            return "{\"id\":\"ch_oncepaypriming\",\"status\":\"succeeded\",\"amount\":1,\"currency\":\"EUR\",\"reference\":\""
                    + PAYMENT_ID + "\"}";
        }

        @Override
        public void close() {
            try {
                socket.close();
                server.join(2000);
            } catch (IOException | InterruptedException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
