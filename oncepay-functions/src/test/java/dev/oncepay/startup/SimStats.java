package dev.oncepay.startup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.testing.TestEnvironment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The simulator's request counts ({@code GET /_sim/stats}): priming must leave them as they were. */
final class SimStats {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SimStats() {
    }

    static JsonNode read() throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(TestEnvironment.simulator().baseUrl() + "/_sim/stats")).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(answer.body());
    }
}
