package dev.oncepay.testing;

import dev.oncepay.testkit.HttpApiEvents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Invokes the function under test through Quarkus' Lambda mock event server: the event JSON is
 * posted, the Lambda runtime loop of the application picks it up, and the function's output JSON
 * comes back — the same path an invocation takes on AWS.
 */
public final class LambdaClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LambdaClient() {
    }

    /**
     * The function's raw output as a JSON tree. For events that are not HTTP requests (the
     * schedule); an API Gateway event goes through {@link #call(String)}, which checks the answer.
     */
    public static JsonNode invoke(String eventJson) {
        try {
            HttpRequest request = HttpRequest.newBuilder(
                    URI.create(TestEnvironment.lambdaEndpoint()))
                    .timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(eventJson))
                    .build();
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Invokes an API Gateway function and reads its HTTP API response, checked against the OpenAPI document. */
    public static ApiResponse call(HttpApiEvents event) {
        return call(event.json());
    }

    /**
     * Invokes an API Gateway function with this HTTP API event JSON and reads its response. Every
     * answer passes {@link OpenApiContract#check}: a status, header or body the document does not
     * describe fails the test.
     */
    public static ApiResponse call(String eventJson) {
        ApiResponse response = ApiResponse.of(invoke(eventJson));
        OpenApiContract.check(eventJson, response);
        return response;
    }

    /** An API Gateway v2 response as the function returned it. */
    public record ApiResponse(int status, Map<String, String> headers, String body, JsonNode json) {
        public static ApiResponse of(JsonNode output) {
            if (!output.has("statusCode")) {
                // The invocation itself failed (an exception escaped the function, as in a crash).
                return new ApiResponse(-1, Map.of(), output.toString(), output);
            }
            Map<String, String> headers = new HashMap<>();
            JsonNode h = output.path("headers");
            for (Iterator<String> names = h.fieldNames(); names.hasNext();) {
                String name = names.next();
                headers.put(name, h.get(name).asText());
            }
            String body = output.path("body").asText(null);
            JsonNode json = null;
            try {
                json = body == null || body.isEmpty() ? null : JSON.readTree(body);
            } catch (IOException notJson) {
                // leave json null
            }
            return new ApiResponse(output.get("statusCode").asInt(), headers, body, json);
        }

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(Map.Entry::getValue).findFirst().orElse(null);
        }
    }
}
