package dev.oncepay.http;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.oncepay.validation.InvalidRequestException;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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

    private static final char REPLACEMENT_CHARACTER = '\uFFFD';

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record RequestContext(String requestId, String routeKey, Http http, Authorizer authorizer) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Http(String method, String path, String sourceIp) {
    }

    /**
     * {@code jwt} for a JWT authorizer, {@code lambda} for a Lambda authorizer's context, {@code iam}
     * for IAM authorization (the operator API).
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Authorizer(Jwt jwt, Map<String, Object> lambda, Iam iam) {
    }

    /** The IAM principal API Gateway authorized the request for (SigV4). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Iam(String userArn, String userId, String accountId) {
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

    /**
     * The body exactly as the client sent it (API Gateway base64-encodes some bodies). Nothing is
     * replaced on the way: a body that cannot be the client's bytes is refused, not repaired.
     *
     * @throws InvalidRequestException a base64 body that is not base64, or a text body with
     *         unpaired surrogates (no bytes decode to those; {@link String#getBytes} would write {@code ?})
     */
    public byte[] rawBody() {
        if (body == null) {
            return new byte[0];
        }
        if (base64Encoded) {
            try {
                return Base64.getDecoder().decode(body);
            } catch (IllegalArgumentException notBase64) {
                throw new InvalidRequestException("body", "is flagged base64 but is not base64");
            }
        }
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(body));
            byte[] raw = new byte[bytes.remaining()];
            bytes.get(raw);
            return raw;
        } catch (CharacterCodingException unpairedSurrogate) {
            throw new InvalidRequestException("body", "must be valid UTF-8");
        }
    }

    /**
     * {@link #rawBody()} of a request whose body must be UTF-8 text: invalid bytes, and U+FFFD in
     * a text body — the mark a lossy decoder on the way leaves where the client's bytes were not
     * UTF-8 — are refused, so a damaged request is never taken for the client's.
     *
     * @throws InvalidRequestException naming {@code body}
     */
    public byte[] utf8Body() {
        byte[] raw = rawBody();
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw)).toString();
            if (!base64Encoded && text.indexOf(REPLACEMENT_CHARACTER) >= 0) {
                throw new InvalidRequestException("body",
                        "must be valid UTF-8 (it contains U+FFFD, where bytes were replaced before they reached us)");
            }
        } catch (CharacterCodingException notUtf8) {
            throw new InvalidRequestException("body", "must be valid UTF-8");
        }
        return raw;
    }

    /**
     * {@link #utf8Body()} of a request that must be {@code application/json}.
     *
     * @throws InvalidRequestException naming {@code Content-Type} or {@code body}
     */
    public byte[] jsonBody() {
        String contentType = header("Content-Type");
        String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!mediaType.equals("application/json")) {
            throw new InvalidRequestException("Content-Type", "must be application/json");
        }
        return utf8Body();
    }

    /**
     * The query string's parameters; each at most once, and only those {@code known}.
     *
     * @throws InvalidRequestException naming the parameter at fault
     */
    public Map<String, String> query(Set<String> known) {
        Map<String, String> parameters = new LinkedHashMap<>();
        if (rawQueryString == null || rawQueryString.isEmpty()) {
            return parameters;
        }
        for (String pair : rawQueryString.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name;
            String value;
            try {
                name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException badEscape) {
                throw new InvalidRequestException("query", "is not a valid query string");
            }
            if (!known.contains(name)) {
                throw new InvalidRequestException(name, "is not a parameter of this listing");
            }
            if (parameters.put(name, value) != null) {
                throw new InvalidRequestException(name, "is given more than once");
            }
        }
        return parameters;
    }

    /**
     * The {@code limit} query parameter of a listing: {@code fallback} when absent.
     *
     * @throws InvalidRequestException naming {@code limit}: not an integer from 1 to {@code max}
     */
    public static int limit(Map<String, String> query, int fallback, int max) {
        if (!query.containsKey("limit")) {
            return fallback;
        }
        int limit;
        try {
            limit = Integer.parseInt(query.get("limit"));
        } catch (NumberFormatException notANumber) {
            limit = -1;
        }
        if (limit < 1 || limit > max) {
            throw new InvalidRequestException("limit", "must be an integer from 1 to " + max);
        }
        return limit;
    }
}
