package dev.oncepay.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** A client of a running simulator over real HTTP, for the simulator's tests. */
final class SimHttp {
    private static final ObjectMapper JSON = new ObjectMapper();

    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** The simulator as the test holds it now: a test may restart it on another clock. */
    private final Supplier<PspSimulator> sim;

    SimHttp(Supplier<PspSimulator> sim) {
        this.sim = sim;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** A JSON {@code POST} with an {@code Idempotency-Key}, as oncepay sends charges and refunds. */
    HttpRequest idempotentPost(String path, String key, String body, Duration timeout) {
        return HttpRequest.newBuilder(uri(path))
                .timeout(timeout)
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    /**
     * A Stripe API {@code POST}: form-encoded, a test secret key, an {@code Idempotency-Key}, as the
     * Stripe adapter sends creates and refunds.
     */
    static HttpRequest stripePost(URI uri, String apiKey, String key, String form) {
        return HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(5))
                .header("Authorization", "Bearer " + apiKey)
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build();
    }

    /**
     * Sends every request while the simulator holds them just before execution, releases them all
     * at one instant once all are inside (a real race), and counts the answers by status.
     */
    Map<Integer, Long> releasedAtOnce(List<HttpRequest> requests) {
        sim.get().holdCharges();
        List<CompletableFuture<HttpResponse<String>>> calls = requests.stream()
                .map(request -> client.sendAsync(request, HttpResponse.BodyHandlers.ofString())).toList();
        assertTrue(sim.get().awaitHeldRequests(requests.size(), Duration.ofSeconds(5)));
        sim.get().releaseCharges();
        return calls.stream().map(CompletableFuture::join)
                .collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
    }

    URI uri(String path) {
        return URI.create(sim.get().baseUrl() + path);
    }

    static String errorType(HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body()).get("error").get("type").asText();
    }
}
