package dev.oncepay.sim;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** A tiny webhook endpoint for the simulator's tests: records what arrives, fails the first few deliveries. */
final class WebhookReceiver implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One delivery that was answered {@code 200}: raw body and the headers the tests check. */
    record Received(String body, String signature, String contentType) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }

        /**
         * Checks {@code t=…,v1=…} with an HMAC-SHA256 of {@code "t.body"} computed here,
         * independently of the simulator's code, and that {@code t} is about now.
         */
        boolean signedWith(String secret) throws GeneralSecurityException {
            String[] parts = signature.split(",");
            String t = parts[0].substring("t=".length());
            String v1 = parts[1].substring("v1=".length());
            assertTrue(Math.abs(Instant.now().getEpochSecond() - Long.parseLong(t)) < 60);
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] expected = mac.doFinal((t + "." + body).getBytes(StandardCharsets.UTF_8));
            return MessageDigest.isEqual(expected, HexFormat.of().parseHex(v1));
        }
    }

    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private final AtomicInteger failuresLeft;
    private final String path;
    private final HttpServer server;

    /**
     * @param path e.g. {@code /webhooks/sim}
     * @param signatureHeader the header whose value {@link Received#signature()} records
     * @param failFirst how many deliveries are answered {@code 500} first
     */
    WebhookReceiver(String path, String signatureHeader, int failFirst) throws IOException {
        this.path = path;
        failuresLeft = new AtomicInteger(failFirst);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(path, exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            int status = failuresLeft.getAndDecrement() > 0 ? 500 : 200;
            if (status == 200) {
                received.add(new Received(body, exchange.getRequestHeaders().getFirst(signatureHeader),
                        exchange.getRequestHeaders().getFirst("Content-Type")));
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    Received next() throws InterruptedException {
        Received next = received.poll(5, TimeUnit.SECONDS);
        assertNotNull(next, "no webhook arrived");
        return next;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
