package dev.oncepay.provider;

import dev.oncepay.config.OncepayConfig;
import io.quarkus.rest.client.reactive.QuarkusRestClientBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * An adapter's REST clients, one per account base URL, built on first use with the configured
 * connect and read timeouts. They never retry ({@link ProviderCalls} is the one retry layer) and
 * never turn a status into an exception: every answer comes back as a response for the adapter's
 * {@code classify} to read.
 *
 * @param <T> the adapter's REST interface
 */
public final class ProviderClients<T> {
    private final Class<T> api;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final Map<URI, T> clients = new ConcurrentHashMap<>();

    public ProviderClients(Class<T> api, OncepayConfig config) {
        this.api = api;
        this.connectTimeout = config.provider().connectTimeout();
        this.readTimeout = config.provider().readTimeout();
    }

    /** The client of the account at {@code baseUrl}. */
    public T at(URI baseUrl) {
        return clients.computeIfAbsent(baseUrl, uri -> QuarkusRestClientBuilder.newBuilder()
                .baseUri(uri)
                .connectTimeout(connectTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .readTimeout(readTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .property("microprofile.rest.client.disable.default.mapper", true)
                .build(api));
    }
}
