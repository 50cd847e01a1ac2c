package dev.oncepay.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.psp.PspAdapter;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.ProviderAdapter;
import dev.oncepay.provider.stripe.StripeAdapter;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The requests each adapter puts on the wire, byte for byte: method, path and query, the headers
 * that carry meaning, and the body. The expected texts are fixed captures of those requests, so a
 * change of HTTP client cannot change what a provider reads; Stripe's form in particular is compared
 * as bytes, not as parsed fields. A GET carries no body and no {@code Content-Length}.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ProviderWireFormatTest {
    private static final List<String> MEANINGFUL = List.of("accept", "authorization", "content-type", "idempotency-key",
            "stripe-version", "transfer-encoding", "content-length");

    @Inject
    PspAdapter psp;
    @Inject
    StripeAdapter stripe;

    private HttpServer server;
    private final List<String> seen = new ArrayList<>();

    @BeforeEach
    void capture() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", exchange -> {
            Map<String, String> headers = new TreeMap<>();
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (MEANINGFUL.contains(name.toLowerCase(Locale.ROOT))) {
                    headers.put(name.toLowerCase(Locale.ROOT), String.join(",", values));
                }
            });
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            synchronized (seen) {
                seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath()
                        + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery())
                        + "\n" + headers + "\n" + body);
            }
            byte[] answer = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void theGenericPspGetsJson() {
        assertEquals(List.of("""
                POST /v1/charges
                {accept=application/json, authorization=Bearer sk_wire, content-length=177, content-type=application/json, \
                idempotency-key=oncepay-pay_0123456789abcdef4123456789abcdef}
                {"amount":1234,"currency":"EUR","reference":"pay_0123456789abcdef4123456789abcdef","description":"order #42 – café & more",\
                "paymentMethod":"pm_card_visa","customer":"cus_A1"}""", """
                GET /v1/charges?reference=pay_0123456789abcdef4123456789abcdef
                {accept=application/json, authorization=Bearer sk_wire}
                """), sentBy(psp));
    }

    @Test
    void stripeGetsItsFormByteForByte() {
        assertEquals(List.of("""
                POST /v1/payment_intents
                {accept=application/json, authorization=Bearer sk_wire, content-length=294, \
                content-type=application/x-www-form-urlencoded, idempotency-key=oncepay-pay_0123456789abcdef4123456789abcdef, \
                stripe-version=2026-07-29.dahlia}
                amount=1234&currency=eur&confirm=true&metadata[oncepay_payment_id]=pay_0123456789abcdef4123456789abcdef\
                &payment_method=pm_card_visa&customer=cus_A1&metadata[oncepay_reference]=order+%2342+%E2%80%93+caf%C3%A9+%26+more\
                &description=Tea%2C+2+%C3%97+250+g%3B+100%25+%5Borganic%5D+%7E*%21%27%28%29-._""", """
                GET /v1/payment_intents/search?query=metadata%5B%27oncepay_payment_id%27%5D%3A%27pay_0123456789abcdef4123456789abcdef%27
                {accept=application/json, authorization=Bearer sk_wire, stripe-version=2026-07-29.dahlia}
                """), sentBy(stripe));
    }

    /** What {@code adapter} sent for a charge and then a lookup (by our payment id) of the same payment. */
    private List<String> sentBy(ProviderAdapter adapter) {
        Payment payment = payment(adapter.id(), "pm_card_visa", "cus_A1");
        adapter.sendCharge(endpoint(adapter.id()), payment);
        adapter.sendLookup(endpoint(adapter.id()), payment);
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }

    private URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private AccountEndpoint endpoint(String provider) {
        return new AccountEndpoint(new ProviderAccount(provider, "wire"), url(), "sk_wire");
    }

    private static Payment payment(String provider, String method, String customer) {
        Instant now = Instant.now();
        return new Payment("pay_0123456789abcdef4123456789abcdef", "tenant-wire", PaymentStatus.PENDING, 1234, "EUR",
                "order #42 – café & more", "Tea, 2 × 250 g; 100% [organic] ~*!'()-._", null, null, null, now, now, 1, 0,
                new ProviderAccount(provider, "wire"), now.plusSeconds(30), new PaymentInstrument(method, customer), null);
    }
}
