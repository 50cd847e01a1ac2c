package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * An error answer of the simulated provider: {@code {"error":{"type","message"}}} with a status and
 * optional extra headers. Thrown from handlers so validation reads top to bottom.
 */
final class ApiError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String type;
    private final Map<String, String> headers;
    /** Further fields of the error object (Stripe's {@code code}, {@code decline_code}, ...), or null. */
    private final ObjectNode details;

    ApiError(int status, String type, String message) {
        this(status, type, message, Map.of());
    }

    ApiError(int status, String type, String message, Map<String, String> headers) {
        this(status, type, message, headers, null);
    }

    ApiError(int status, String type, String message, Map<String, String> headers, ObjectNode details) {
        super(message, null, false, false); // control flow, not a bug: no stack trace needed
        this.status = status;
        this.type = type;
        this.headers = Map.copyOf(headers);
        this.details = details;
    }

    static ApiError invalidRequest(String message) {
        return new ApiError(400, "invalid_request", message);
    }

    /** {@code 409}: another request with this key is still being processed (Stripe's wording). */
    static ApiError keyInFlight(String key) {
        return new ApiError(409, "idempotency_error",
                "There is currently another in-progress request using Idempotency-Key " + key);
    }

    /** A {@code 5xx}, with {@code Retry-After} when the faults ask for one (0 = none). */
    static ApiError serverError(int status, String type, String message, Faults settings) {
        long retryAfter = settings.serverErrorRetryAfterSeconds();
        return new ApiError(status, type, message,
                retryAfter > 0 ? Map.of("Retry-After", Long.toString(retryAfter)) : Map.of());
    }

    int status() {
        return status;
    }

    Map<String, String> headers() {
        return headers;
    }

    ObjectNode body(ObjectMapper json) {
        ObjectNode root = json.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("type", type);
        error.put("message", getMessage());
        if (details != null) {
            error.setAll(details);
        }
        return root;
    }
}
