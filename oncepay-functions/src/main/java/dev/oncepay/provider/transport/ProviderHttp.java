package dev.oncepay.provider.transport;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.RenewableHttpClient;
import dev.oncepay.provider.spi.ProviderReply;
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
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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
 * JDK 17 reports a connect timeout, rightly: nothing was sent) and then, again, the wait for the body
 * ({@link BoundedBody}). The calling thread waits in {@link HttpClient#send}, which an interrupt
 * (SmallRye's attempt timeout) ends at once, cancelling the exchange and closing its connection.
 *
 * <p>Why {@code send} and a direct executor: {@code sendAsync} runs the exchange on the client's
 * worker threads and completes its future on the JDK's default async pool, which, where the common
 * fork-join pool has fewer than 2 threads (2 cores or fewer, as in the smaller Lambda sizes),
 * starts a new thread for every task: two hand-offs and a thread start per provider call. With
 * {@code send}, the request is written on the calling thread and the answer read on the selector
 * thread, which wakes the caller.
 */
@ApplicationScoped
public class ProviderHttp {
    private final Duration readTimeout;
    private final RenewableHttpClient http;

    @Inject
    public ProviderHttp(OncepayConfig config) {
        this(config.provider().connectTimeout(), config.provider().readTimeout());
    }

    ProviderHttp(Duration connectTimeout, Duration readTimeout) {
        this.readTimeout = readTimeout;
        this.http = new RenewableHttpClient(connectTimeout);
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

    /** Builds the JDK client in the background, so the first provider call finds it ready ({@link RenewableHttpClient}). */
    public void buildInBackground() {
        http.buildInBackground("oncepay-provider-http-build");
    }

    /** Whether its client is built (for tests). */
    public boolean clientBuilt() {
        return http.built();
    }

    /** After a SnapStart restore: no pooled connection of the snapshot is reused. */
    public void forgetConnections() {
        http.forgetConnections();
    }

    private HttpRequest.Builder request(URI uri, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(readTimeout).header("Accept", "application/json");
        headers.forEach(request::header);
        return request;
    }

    /**
     * One exchange. The status and headers stand once they arrived: a body that then breaks off or
     * stalls past the read timeout is {@code null}, as is an empty one.
     */
    private ProviderReply exchange(HttpRequest request) {
        AtomicReference<HttpResponse.ResponseInfo> head = new AtomicReference<>();
        try {
            HttpResponse<byte[]> response = http.client().send(request, info -> {
                head.set(info);
                return new BoundedBody(readTimeout);
            });
            return reply(response.statusCode(), response.headers(), response.body());
        } catch (IOException failed) {
            HttpResponse.ResponseInfo info = head.get();
            if (info != null) {
                return reply(info.statusCode(), info.headers(), null); // the body broke off
            }
            throw new UncheckedIOException(failed.getMessage(), failed);
        } catch (InterruptedException interrupted) {
            // send has cancelled the exchange, which closes its connection
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("provider exchange interrupted"));
        }
    }

    private static ProviderReply reply(int status, HttpHeaders headers, byte[] body) {
        return new ProviderReply(status, headers(headers),
                body == null || body.length == 0 ? null : new String(body, StandardCharsets.UTF_8));
    }

    /**
     * The body as bytes, or {@code null} once {@code limit} has passed since the headers (the
     * subscription is then cancelled, which closes the connection): the request's own timeout
     * ends at the headers.
     */
    static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final HttpResponse.BodySubscriber<byte[]> bytes = HttpResponse.BodySubscribers.ofByteArray();
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();

        BoundedBody(Duration limit) {
            bytes.getBody().whenComplete((complete, failure) -> {
                if (failure != null) {
                    body.completeExceptionally(failure);
                } else {
                    body.complete(complete);
                }
            });
            body.completeOnTimeout(null, limit.toNanos(), TimeUnit.NANOSECONDS);
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            body.whenComplete((complete, failure) -> {
                if (complete == null && failure == null) {
                    subscription.cancel(); // stalled past the limit
                }
            });
            bytes.onSubscribe(subscription);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            bytes.onNext(item);
        }

        @Override
        public void onError(Throwable throwable) {
            bytes.onError(throwable);
        }

        @Override
        public void onComplete() {
            bytes.onComplete();
        }
    }

    private static Map<String, String> headers(HttpHeaders received) {
        Map<String, String> headers = new TreeMap<>();
        received.map().forEach((name, values) -> {
            if (!values.isEmpty()) {
                headers.put(name.toLowerCase(Locale.ROOT), values.get(0));
            }
        });
        return headers;
    }
}
