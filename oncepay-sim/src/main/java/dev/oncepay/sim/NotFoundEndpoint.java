package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;

/** Everything outside the provider and simulator APIs: a JSON 404 rather than the JDK's HTML. */
final class NotFoundEndpoint extends JsonHandler {

    NotFoundEndpoint(ObjectMapper json) {
        super(json);
    }

    @Override
    protected void serve(HttpExchange exchange) {
        throw new ApiError(404, "not_found", "no such endpoint: " + exchange.getRequestURI().getPath());
    }
}
