package dev.oncepay.provider;

import dev.oncepay.config.OncepayConfig;
import io.quarkus.rest.client.reactive.QuarkusRestClientBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * An adapter's REST clients, one per account base URL, built on first use with the configured
 * connect and read timeouts. They never retry ({@link ProviderCalls} is the one retry layer) and
 * never turn a status into an exception: every answer comes back as a response for the adapter's
 * {@code classify} to read.
 *
 * <p>Priming builds them ahead of the first call ({@link #buildAll}): building a REST client loads
 * and initialises most of the client stack, and opens no connection.
 *
 * @param <T> the adapter's REST interface
 */
public final class ProviderClients<T> {
    /** Every adapter's clients, for priming (weakly: an application that stopped lets its adapters go). */
    private static final Set<ProviderClients<?>> LIVE = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private final Class<T> api;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final Map<URI, T> clients = new ConcurrentHashMap<>();

    public ProviderClients(Class<T> api, OncepayConfig config) {
        this.api = api;
        this.connectTimeout = config.provider().connectTimeout();
        this.readTimeout = config.provider().readTimeout();
        LIVE.add(this);
    }

    /**
     * Builds every adapter's client for each of {@code baseUrls} (an adapter that does not serve an
     * account gets a client it will not use: cheaper than knowing which adapter is whose here).
     *
     * @return how many clients exist now
     */
    public static int buildAll(Collection<URI> baseUrls) {
        List<ProviderClients<?>> all;
        synchronized (LIVE) {
            all = List.copyOf(LIVE);
        }
        int built = 0;
        for (ProviderClients<?> clients : all) {
            baseUrls.forEach(clients::at);
            built += clients.clients.size();
        }
        return built;
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
