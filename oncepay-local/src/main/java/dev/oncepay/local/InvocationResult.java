package dev.oncepay.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** How an invocation ended, as Lambda reports it to its caller: the function's output, or an error. */
sealed interface InvocationResult {

    /** The sandbox that ran the invocation (e.g. {@code charge#2}), or null if none did. */
    String sandbox();

    /** The same result, attributed to {@code label}. */
    InvocationResult ranIn(String label);

    /** How a log line names who answered: the sandbox that ran it, else {@code function} (Lambda itself). */
    default String ranBy(String function) {
        return sandbox() != null ? sandbox() : function;
    }

    /** The function returned {@code payload} (posted to {@code /invocation/{id}/response}). */
    record Success(byte[] payload, String sandbox) implements InvocationResult {
        Success(byte[] payload) {
            this(payload, null);
        }

        @Override
        public Success ranIn(String label) {
            return new Success(payload, label);
        }
    }

    /**
     * The invocation failed: the function threw (the runtime posted {@code /error}), the sandbox
     * died or timed out, or Lambda could not run it at all. {@code payload} is Lambda's error JSON
     * ({@code errorType}, {@code errorMessage}, maybe {@code stackTrace}).
     */
    record Failure(String errorType, String errorMessage, byte[] payload, String sandbox) implements InvocationResult {
        Failure(String errorType, String errorMessage, byte[] payload) {
            this(errorType, errorMessage, payload, null);
        }

        @Override
        public Failure ranIn(String label) {
            return new Failure(errorType, errorMessage, payload, label);
        }
    }

    static Failure failure(String errorType, String message) {
        ObjectNode body = new ObjectMapper().createObjectNode().put("errorType", errorType).put("errorMessage", message);
        return new Failure(errorType, message, body.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Lambda's error document as a runtime posts it ({@code errorType}, {@code errorMessage}), the
     * type falling back to {@code typeHeader} ({@code Lambda-Runtime-Function-Error-Type}).
     */
    static Failure fromErrorDocument(String typeHeader, byte[] body) {
        String type = typeHeader;
        String message = "";
        try {
            JsonNode node = new ObjectMapper().readTree(body);
            if (node != null && node.isObject()) {
                type = node.path("errorType").asText(type);
                message = node.path("errorMessage").asText("");
            }
        } catch (IOException notJson) {
            message = new String(body, StandardCharsets.UTF_8);
        }
        return new Failure(type == null ? "Unhandled" : type, message, body);
    }

    default String describe() {
        if (this instanceof Failure f) {
            return f.errorType() + ": " + f.errorMessage();
        }
        return new String(((Success) this).payload(), StandardCharsets.UTF_8);
    }
}
