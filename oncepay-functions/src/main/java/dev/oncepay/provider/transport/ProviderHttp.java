package dev.oncepay.provider.transport;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.provider.spi.ProviderReply;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.http.HttpClientRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jboss.resteasy.reactive.client.impl.ClientBuilderImpl;
import org.jboss.resteasy.reactive.client.impl.UniInvoker;
import org.jboss.resteasy.reactive.client.spi.ResteasyReactiveClientRequestContext;

/**
 * The one HTTP transport to every provider account: the Quarkus REST client (its Jakarta REST
 * client API, on Quarkus' Vert.x), one client for all accounts (it pools connections per host).
 * One call is one exchange; every status comes back as a {@link ProviderReply} for the adapter's
 * {@code classify}. Failures are {@link UncheckedIOException}s; {@link #neverSent} tells which of
 * them left nothing at the provider.
 *
 * <p>What the client is told, and why:
 * <ul>
 * <li>HTTP/1.1, no redirects: a 3xx is an answer like any other;</li>
 * <li>no retry: the Vert.x client never sends a request twice (a pooled connection that dies under
 * a POST fails that POST), and nothing here retries. {@link dev.oncepay.provider.policy.ProviderCalls}
 * is the one retry layer.</li>
 * </ul>
 *
 * <p>Timeouts: {@code connect-timeout} bounds the TCP connect (Netty's
 * {@code ConnectTimeoutException} is a {@link ConnectException}: never sent); {@code read-timeout}
 * bounds every silence of the exchange (the client's idle timeout) and, from the status line on,
 * the whole body: a body still arriving then is cut off and its connection closed.
 *
 * <p>Why the reactive invoker with a {@link Response} result: the status and headers arrive as
 * soon as they are read, with the body streamed, so a body that breaks off leaves the status
 * standing; and cancelling it (an interrupt from SmallRye's attempt timeout while the caller waits)
 * resets the exchange, which closes its connection. The calling thread waits and reads the body;
 * the Vert.x event loop does the I/O. For what comes after the status line, each exchange is bound
 * to its Vert.x request ({@link Exchange}): an interrupt or the body's deadline resets it there.
 */
@ApplicationScoped
public class ProviderHttp {
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private volatile Client client;

    @Inject
    public ProviderHttp(OncepayConfig config) {
        this(config.provider().connectTimeout(), config.provider().readTimeout());
    }

    ProviderHttp(Duration connectTimeout, Duration readTimeout) {
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
    }

    /** {@code base} (an account's URL, with or without a trailing slash) followed by {@code path}. */
    public static URI resolve(URI base, String path) {
        String root = base.toString();
        return URI.create((root.endsWith("/") ? root.substring(0, root.length() - 1) : root) + path);
    }

    /** A query parameter's or form field's value, form-encoded. */
    public static String encoded(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    public ProviderReply post(URI uri, Map<String, String> headers, String contentType, String body) {
        Entity<String> entity = Entity.entity(body, MediaType.valueOf(contentType));
        return exchange(uri, headers, invoker -> invoker.method("POST", entity, Response.class));
    }

    public ProviderReply get(URI uri, Map<String, String> headers) {
        return exchange(uri, headers, invoker -> invoker.method("GET", Response.class));
    }

    /**
     * Whether {@code failure} happened before anything reached the provider: the host was not
     * found, or the connection was refused or not made in time. Anything else may have been sent.
     */
    public static boolean neverSent(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof UnknownHostException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Builds the client on a daemon thread now, so that the first provider call finds it ready:
     * the first client loads and links the REST client and the Vert.x HTTP client, which then runs
     * beside the rest of init and the first request. A call meanwhile waits for this build; a build
     * that fails is left to the next call, which tries again and reports it.
     */
    public void buildInBackground() {
        Thread builder = new Thread(() -> {
            try {
                client();
            } catch (RuntimeException e) {
                // the next call builds it and fails where it can be reported
            }
        }, "oncepay-provider-http-build");
        builder.setDaemon(true);
        builder.start();
    }

    /** Whether its client is built (for tests). */
    public boolean clientBuilt() {
        return client != null;
    }

    /**
     * After a SnapStart restore, on another host and maybe days later: closes the client and with
     * it every pooled connection of the snapshot. The next call builds a fresh client.
     */
    public void forgetConnections() {
        Client dropped;
        synchronized (this) {
            dropped = client;
            client = null;
        }
        if (dropped != null) {
            dropped.close();
        }
    }

    private Client client() {
        Client current = client;
        if (current == null) {
            synchronized (this) {
                current = client;
                if (current == null) {
                    ClientBuilderImpl builder = new ClientBuilderImpl();
                    builder.connectTimeout(connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
                    builder.readTimeout(readTimeout.toMillis(), TimeUnit.MILLISECONDS);
                    builder.followRedirects(false);
                    builder.http2(false);
                    builder.register(Exchange.BINDING);
                    current = builder.build();
                    client = current;
                }
            }
        }
        return current;
    }

    /**
     * One exchange. The status and headers stand once they arrived: a body that then breaks off or
     * runs past the read timeout is {@code null}, as is an empty one.
     */
    private ProviderReply exchange(URI uri, Map<String, String> headers, Function<UniInvoker, Uni<Response>> send) {
        Exchange exchange = new Exchange();
        Invocation.Builder request = client().target(uri).request(MediaType.APPLICATION_JSON_TYPE)
                .property(Exchange.PROPERTY, exchange);
        headers.forEach(request::header);
        CompletableFuture<Response> head = send.apply(request.rx(UniInvoker.class)).subscribeAsCompletionStage();
        Response response;
        try {
            response = head.get();
        } catch (InterruptedException interrupted) {
            head.cancel(true); // resets the exchange, which closes its connection
            throw interrupted();
        } catch (ExecutionException failed) {
            throw transportFailure(failed.getCause());
        }
        try (response) {
            return new ProviderReply(response.getStatus(), headers(response), exchange.body(response, readTimeout));
        }
    }

    private static UncheckedIOException interrupted() {
        Thread.currentThread().interrupt();
        return new UncheckedIOException(new InterruptedIOException("provider exchange interrupted"));
    }

    private static UncheckedIOException transportFailure(Throwable failure) {
        Throwable cause = failure instanceof ProcessingException && failure.getCause() != null ? failure.getCause() : failure;
        IOException io = cause instanceof IOException e ? e : new IOException(String.valueOf(cause), cause);
        return new UncheckedIOException(io.getMessage(), io);
    }

    private static Map<String, String> headers(Response response) {
        Map<String, String> headers = new TreeMap<>();
        response.getStringHeaders().forEach((name, values) -> {
            if (!values.isEmpty()) {
                headers.put(name.toLowerCase(Locale.ROOT), values.get(0));
            }
        });
        return headers;
    }

    /**
     * One exchange's Vert.x request, bound when the client sends it ({@link #BINDING}, a request
     * filter that finds the exchange in the invocation's properties): what an interrupt or the
     * body's deadline resets once the status line has arrived.
     */
    private static final class Exchange {
        static final String PROPERTY = Exchange.class.getName();
        static final ClientRequestFilter BINDING = request -> ((Exchange) request.getProperty(PROPERTY)).sent =
                (ResteasyReactiveClientRequestContext) request;

        private volatile ResteasyReactiveClientRequestContext sent;

        /**
         * The body, read on the calling thread within {@code limit} of the status line, or
         * {@code null} when it broke off, ran out of time or was empty. A body read in full returns
         * once Vert.x has put the connection back into its pool, so that the next exchange reuses it.
         */
        String body(Response response, Duration limit) {
            HttpClientRequest request = sent.unwrap(HttpClientRequest.class);
            Context context = sent.getContext();
            long deadline = context.owner().setTimer(limit.toMillis(), fired -> request.reset());
            byte[] body;
            try {
                body = response.readEntity(byte[].class);
            } catch (ProcessingException | IllegalStateException brokenOff) {
                request.reset();
                if (causedBy(brokenOff, InterruptedIOException.class)) {
                    throw interrupted();
                }
                return null;
            } finally {
                context.owner().cancelTimer(deadline);
            }
            awaitPooled(context, limit);
            return body == null || body.length == 0 ? null : new String(body, StandardCharsets.UTF_8);
        }

        /**
         * Vert.x ends the response and then, in the same task on the request's context, returns
         * the connection to the pool: a task queued there now runs after both.
         */
        private static void awaitPooled(Context context, Duration limit) {
            CompletableFuture<Void> pooled = new CompletableFuture<>();
            context.runOnContext(next -> pooled.complete(null));
            try {
                pooled.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt(); // the answer arrived in full and stands
            } catch (ExecutionException | TimeoutException notPooled) {
                // the answer stands; the next exchange opens a connection of its own
            }
        }

        private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (type.isInstance(t)) {
                    return true;
                }
            }
            return false;
        }
    }
}
