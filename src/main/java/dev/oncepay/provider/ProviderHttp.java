package dev.oncepay.provider;

import dev.oncepay.config.OncepayConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one HTTP transport to every provider account: the JDK's {@link HttpClient}, one client for
 * all of them (it pools connections per host, and one client is one selector thread). One call is
 * one exchange; every status comes back as a {@link ProviderReply} for the adapter's
 * {@code classify}. Failures are {@link UncheckedIOException}s; {@link #neverSent} tells which of
 * them left nothing at the provider.
 *
 * <p>What the JDK client would otherwise do on its own, and why it does not here:
 * <ul>
 * <li>HTTP/1.1 only: the default ({@code HTTP_2}) tries an {@code h2c} upgrade on {@code http://};</li>
 * <li>no redirects ({@code Redirect.NEVER}): a 3xx is an answer like any other;</li>
 * <li>no retry of a request that may have been sent: JDK 17's {@code MultiExchange} re-sends a
 * request whose pooled connection turned out closed only if the method is idempotent (GET, HEAD,
 * ...), never a POST, unless the system property {@code jdk.httpclient.enableAllMethodRetry} is
 * set, which oncepay never sets. It retries a refused connect once (nothing was sent; within the
 * same connect timeout). {@link ProviderCalls} stays the one retry layer.</li>
 * </ul>
 *
 * <p>Timeouts: {@code connect-timeout} bounds the connect; {@code read-timeout} bounds the wait for
 * the status and headers ({@link HttpRequest#timeout}; should it run out while still connecting,
 * JDK 17 reports a connect timeout, rightly: nothing was sent) and then, again, the wait for the body. The
 * exchange runs asynchronously and the calling thread waits for it, so an interrupt (SmallRye's
 * attempt timeout) ends the wait at once and cancels the exchange, which closes its connection:
 * JDK 17's blocking {@code send} would end on an interrupt too, but a response body read through
 * {@code ofInputStream} would not.
 */
@ApplicationScoped
public class ProviderHttp {
    private final Duration connectTimeout;
    private final Duration readTimeout;
    /** Built at first use; dropped by {@link #forgetConnections()}. */
    private volatile HttpClient client;

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

    /** A query parameter's or form field's value, encoded as the MicroProfile REST client encoded it. */
    public static String encoded(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    public ProviderReply post(URI uri, Map<String, String> headers, String contentType, String body) {
        HttpRequest.Builder request = request(uri, headers).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        return exchange(request.build());
    }

    public ProviderReply get(URI uri, Map<String, String> headers) {
        return exchange(request(uri, headers).GET().build());
    }

    /**
     * Whether {@code failure} happened before anything reached the provider: the connection was
     * refused or not made in time. The JDK's {@link HttpConnectTimeoutException} is no
     * {@link ConnectException}, so both are named. Anything else may have been sent.
     */
    public static boolean neverSent(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Drops the client and with it its pooled connections (its selector thread ends once the client
     * is unreachable): after a SnapStart restore, on another host and maybe days later, no
     * connection of the snapshot is reused. The next call builds a fresh client.
     */
    public void forgetConnections() {
        client = null;
    }

    private HttpRequest.Builder request(URI uri, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(readTimeout).header("Accept", "application/json");
        headers.forEach(request::header);
        return request;
    }

    private HttpClient client() {
        HttpClient current = client;
        if (current == null) {
            synchronized (this) {
                current = client;
                if (current == null) {
                    current = HttpClient.newBuilder()
                            .version(HttpClient.Version.HTTP_1_1)
                            .followRedirects(HttpClient.Redirect.NEVER)
                            .connectTimeout(connectTimeout)
                            .build();
                    client = current;
                }
            }
        }
        return current;
    }

    /**
     * One exchange. The status and headers stand once they arrived: a body that then breaks off or
     * stalls past the read timeout is {@code null}, as is an empty one.
     */
    private ProviderReply exchange(HttpRequest request) {
        CompletableFuture<HttpResponse.ResponseInfo> head = new CompletableFuture<>();
        CompletableFuture<HttpResponse<byte[]>> exchange = client().sendAsync(request, info -> {
            head.complete(info);
            return HttpResponse.BodySubscribers.ofByteArray();
        });
        exchange.whenComplete((response, failure) -> {
            if (failure != null) {
                head.completeExceptionally(failure instanceof CompletionException wrapped && wrapped.getCause() != null
                        ? wrapped.getCause() : failure);
            }
        });
        try {
            HttpResponse.ResponseInfo info = head.get(); // ends by the connect and read timeouts
            byte[] body;
            try {
                body = exchange.get(readTimeout.toNanos(), TimeUnit.NANOSECONDS).body();
            } catch (ExecutionException | TimeoutException brokenOffOrStalled) {
                exchange.cancel(true);
                body = null;
            }
            return new ProviderReply(info.statusCode(), headers(info),
                    body == null || body.length == 0 ? null : new String(body, StandardCharsets.UTF_8));
        } catch (ExecutionException failed) {
            Throwable cause = failed.getCause();
            throw cause instanceof IOException io ? new UncheckedIOException(io.getMessage(), io)
                    : new UncheckedIOException(new IOException(cause));
        } catch (InterruptedException interrupted) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("provider exchange interrupted"));
        }
    }

    private static Map<String, String> headers(HttpResponse.ResponseInfo info) {
        Map<String, String> headers = new TreeMap<>();
        info.headers().map().forEach((name, values) -> {
            if (!values.isEmpty()) {
                headers.put(name.toLowerCase(Locale.ROOT), values.get(0));
            }
        });
        return headers;
    }
}
