package dev.oncepay.provider;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What one HTTP exchange with a provider returned, free of client types: the status, the headers
 * (names in lower case, first value), and the body as text ({@code null} when there was none or
 * it broke off: the status still stands, the body is no answer).
 */
public record ProviderReply(int status, Map<String, String> headers, String body) {

    public ProviderReply {
        headers = Map.copyOf(headers);
    }

    /** A header's first value, or {@code null}; {@code name} in any case. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /**
     * Performs {@code exchange}, a REST client call returning the raw response, and reads it whatever
     * its status. Transport failures (refused, reset, timed out) propagate.
     */
    public static ProviderReply exchange(Supplier<Response> exchange) {
        Response response;
        try {
            response = exchange.get();
        } catch (WebApplicationException error) {
            response = error.getResponse();
        }
        Map<String, String> headers = new TreeMap<>();
        response.getStringHeaders().forEach((name, values) -> {
            if (!values.isEmpty()) {
                headers.put(name.toLowerCase(Locale.ROOT), values.get(0));
            }
        });
        String body;
        try {
            body = response.hasEntity() ? response.readEntity(String.class) : null;
        } catch (RuntimeException brokenOff) {
            body = null;
        }
        return new ProviderReply(response.getStatus(), headers, body);
    }
}
