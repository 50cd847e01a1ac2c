package dev.oncepay.http;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * An API Gateway HTTP API (payload format 2.0) request event, as much of it as oncepay reads.
 * A record of our own rather than the typed SDK class: it stays small and reflection-free.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HttpApiEvent(
        String version,
        String routeKey,
        String rawPath,
        String rawQueryString,
        Map<String, String> headers,
        Map<String, String> pathParameters,
        RequestContext requestContext,
        String body,
        @JsonProperty("isBase64Encoded") boolean base64Encoded) {

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record RequestContext(String requestId, String routeKey, Http http, Authorizer authorizer) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Http(String method, String path, String sourceIp) {
    }

    /** {@code jwt} for a JWT authorizer, {@code lambda} for a Lambda authorizer's context. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Authorizer(Jwt jwt, Map<String, Object> lambda) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Jwt(Map<String, Object> claims, List<String> scopes) {
    }

    /** HTTP API lower-cases header names, but callers may not: look up case-insensitively. */
    public String header(String name) {
        if (headers == null) {
            return null;
        }
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
    }

    public String method() {
        return requestContext != null && requestContext.http() != null ? requestContext.http().method() : null;
    }

    public String path() {
        if (rawPath != null) {
            return rawPath;
        }
        return requestContext != null && requestContext.http() != null ? requestContext.http().path() : null;
    }

    public String pathParameter(String name) {
        return pathParameters == null ? null : pathParameters.get(name);
    }

    /** The body exactly as the client sent it (API Gateway base64-encodes some bodies). */
    public byte[] rawBody() {
        if (body == null) {
            return new byte[0];
        }
        return base64Encoded ? Base64.getDecoder().decode(body) : body.getBytes(StandardCharsets.UTF_8);
    }
}
