package dev.oncepay.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/** How an invocation ended, as Lambda reports it to its caller: the function's output, or an error. */
sealed interface InvocationResult {

    /** The function returned {@code payload} (posted to {@code /invocation/{id}/response}). */
    record Success(byte[] payload) implements InvocationResult {
    }

    /**
     * The invocation failed: the function threw (the runtime posted {@code /error}), the sandbox
     * died or timed out, or Lambda could not run it at all. {@code payload} is Lambda's error JSON
     * ({@code errorType}, {@code errorMessage}, maybe {@code stackTrace}).
     */
    record Failure(String errorType, String errorMessage, byte[] payload) implements InvocationResult {
    }

    static Failure failure(String errorType, String message) {
        ObjectNode body = new ObjectMapper().createObjectNode().put("errorType", errorType).put("errorMessage", message);
        return new Failure(errorType, message, body.toString().getBytes(StandardCharsets.UTF_8));
    }

    default String describe() {
        if (this instanceof Failure f) {
            return f.errorType() + ": " + f.errorMessage();
        }
        return new String(((Success) this).payload(), StandardCharsets.UTF_8);
    }
}
