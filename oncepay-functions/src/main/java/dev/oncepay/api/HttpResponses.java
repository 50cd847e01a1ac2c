package dev.oncepay.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.validation.InvalidRequestException;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds API Gateway responses: JSON bodies and RFC 9457 {@code application/problem+json} errors. */
@ApplicationScoped
public class HttpResponses {
    public static final String JSON = "application/json";
    public static final String PROBLEM_JSON = "application/problem+json";

    private final ObjectMapper json;

    public HttpResponses(ObjectMapper json) {
        this.json = json;
    }

    /** {@code body} should be an ordered map or a record, so equal answers are equal bytes. */
    public HttpApiResponse json(int status, Object body, Map<String, String> headers) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Content-Type", JSON);
        all.putAll(headers);
        return new HttpApiResponse(status, all, write(body), false);
    }

    public HttpApiResponse problem(ProblemType type, String detail) {
        return problem(type, detail, Map.of(), Map.of());
    }

    public HttpApiResponse problem(ProblemType type, String detail, Map<String, Object> extensions,
            Map<String, String> headers) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type.uri());
        body.put("title", type.title());
        body.put("status", type.status());
        body.put("detail", detail);
        body.putAll(extensions);
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Content-Type", PROBLEM_JSON);
        all.putAll(headers);
        return new HttpApiResponse(type.status(), all, write(body), false);
    }

    public HttpApiResponse invalid(InvalidRequestException e) {
        List<Map<String, String>> errors = e.errors().stream()
                .map(f -> Map.of("field", f.field(), "message", f.message())).toList();
        return problem(ProblemType.INVALID_REQUEST, e.getMessage(), Map.of("errors", errors), Map.of());
    }

    /** {@code 405} for a method the resource does not list, naming the ones it does in {@code Allow}. */
    public HttpApiResponse methodNotAllowed(String allowed) {
        return problem(ProblemType.METHOD_NOT_ALLOWED, "this resource allows " + allowed, Map.of(),
                Map.of("Allow", allowed));
    }

    /** Retry-After in whole seconds, at least 1 (0 would invite a tight retry loop). */
    public static Map<String, String> retryAfter(Duration wait) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        return Map.of("Retry-After", Long.toString(seconds));
    }

    private String write(Object body) {
        try {
            return json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("response body not serialisable", e);
        }
    }
}
