package dev.oncepay.provider.spi;

import java.util.Locale;
import java.util.Map;

/**
 * What one HTTP exchange with a provider returned, free of client types: the status, the headers
 * (names in lower case, first value), and the body as text ({@code null} when there was none or
 * it broke off: the status still stands, the body is no answer). Made by {@link ProviderHttp}.
 */
public record ProviderReply(int status, Map<String, String> headers, String body) {

    public ProviderReply {
        headers = Map.copyOf(headers);
    }

    /** A header's first value, or {@code null}; {@code name} in any case. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }
}
