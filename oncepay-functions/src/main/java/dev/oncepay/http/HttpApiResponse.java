package dev.oncepay.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** An API Gateway HTTP API (payload format 2.0) response. */
public record HttpApiResponse(
        int statusCode,
        Map<String, String> headers,
        String body,
        @JsonProperty("isBase64Encoded") boolean base64Encoded) {

    public String header(String name) {
        return headers == null ? null : headers.get(name);
    }
}
