package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;

/** A client of a running simulator's generic API over real HTTP, for the simulator's tests. */
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

    URI uri(String path) {
        return URI.create(sim.get().baseUrl() + path);
    }

    static String errorType(HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body()).get("error").get("type").asText();
    }
}
