package dev.oncepay.testing;

import dev.oncepay.testing.LambdaClient.ApiResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.TreeSet;

/** Assertions on RFC 9457 {@code application/problem+json} answers of the HTTP contract. */
public final class Problems {
    public static final String BASE = "https://oncepay.dev/problems/";

    private Problems() {
    }

    /** Status, media type, {@code type} URI and {@code status} member; returns the body. */
    public static JsonNode assertProblem(ApiResponse response, int status, String slug) {
        assertEquals(status, response.status(), () -> "status of " + response);
        assertEquals("application/problem+json", response.header("Content-Type"), () -> "media type of " + response);
        JsonNode body = response.json();
        assertNotNull(body, () -> "problem body of " + response);
        assertEquals(BASE + slug, body.path("type").asText(), () -> "problem type of " + response);
        assertEquals(status, body.path("status").asInt(), () -> "problem status member of " + response);
        assertTrue(body.hasNonNull("title"), () -> "problem title of " + response);
        return body;
    }

    /** The names in {@code errors[].field} of a 400 problem. */
    public static Set<String> errorFields(ApiResponse response) {
        Set<String> fields = new TreeSet<>();
        for (JsonNode error : response.json().path("errors")) {
            fields.add(error.path("field").asText());
            assertTrue(error.hasNonNull("message"), () -> "each error explains itself: " + response);
        }
        return fields;
    }
}
