package dev.oncepay.store;

import dev.oncepay.http.RenewableHttpClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullResponse;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * The DynamoDB client's HTTP transport: the JDK's {@link HttpClient}, the one the provider calls
 * use too, instead of the SDK's url-connection client.
 *
 * <p>Why: before it sends a POST with a body on a pooled connection, the JDK's
 * {@code HttpURLConnection} (under the url-connection client) probes whether the server closed it,
 * with a read that waits 1 ms ({@code sun.net.www.http.HttpClient.available()}): 1.1–1.4 ms of
 * nothing per request, 3 of them per charge (measured with JFR socket events on a charge
 * sandbox). The JDK's {@link HttpClient} watches its idle connections in its selector instead. The
 * SDK's Apache client, which does neither, has no Quarkus extension that resolves here.
 *
 * <p>What it keeps from the url-connection client: HTTP/1.1; no retry of its own (the SDK's
 * retry strategy is the only one, see {@link DynamoDbClientProducer}); an attempt's timeout
 * interrupts the calling thread, which cancels the exchange and closes its connection. A closed
 * pooled connection under a POST fails that attempt (JDK 17 re-sends only idempotent methods), and
 * the SDK retries it like any other lost answer, which every conditional write already handles.
 *
 * <p>The request is written on the calling thread ({@link HttpClient#send}) and the answer read on
 * the client's selector thread ({@link RenewableHttpClient}).
 */
@ApplicationScoped
public class StoreHttpClient implements SdkHttpClient {
    /** The url-connection client's defaults; an attempt ends after {@code api-call-attempt-timeout} (1 s) anyway. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    /** Headers the JDK client sets itself and refuses from callers: it writes the Host and Content-Length the SDK signed. */
    private static final Set<String> SET_BY_THE_JDK = Set.of("host", "content-length", "expect", "connection", "upgrade");

    private final RenewableHttpClient http = new RenewableHttpClient(CONNECT_TIMEOUT);

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        return new ExecutableHttpRequest() {
            private volatile Thread caller;

            @Override
            public HttpExecuteResponse call() throws IOException {
                caller = Thread.currentThread();
                try {
                    return response(http.client().send(exchange(request), HttpResponse.BodyHandlers.ofByteArray()));
                } catch (InterruptedException e) {
                    // The SDK's attempt timeout interrupted us (send has cancelled the exchange); the SDK
                    // tells its own timeout from the flag, as it does over a blocking socket.
                    Thread.currentThread().interrupt();
                    InterruptedIOException interrupted = new InterruptedIOException("store request interrupted");
                    interrupted.initCause(e);
                    throw interrupted;
                } finally {
                    caller = null;
                }
            }

            @Override
            public void abort() {
                Thread running = caller;
                if (running != null) {
                    running.interrupt();
                }
            }
        };
    }

    /** Builds the JDK client in the background, so the first store request finds it ready ({@link RenewableHttpClient}). */
    public void buildInBackground() {
        http.buildInBackground("oncepay-store-http-build");
    }

    /** After a SnapStart restore: no pooled connection of the snapshot is reused. */
    public void forgetConnections() {
        http.forgetConnections();
    }

    @Override
    public String clientName() {
        return "JdkHttpClient";
    }

    @Override
    public void close() {
        forgetConnections();
    }

    private static HttpRequest exchange(HttpExecuteRequest request) throws IOException {
        SdkHttpRequest http = request.httpRequest();
        HttpRequest.Builder builder = HttpRequest.newBuilder(http.getUri()).timeout(READ_TIMEOUT);
        http.forEachHeader((name, values) -> {
            if (!SET_BY_THE_JDK.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> builder.header(name, value));
            }
        });
        HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.noBody();
        if (request.contentStreamProvider().isPresent()) {
            try (InputStream in = request.contentStreamProvider().get().newStream()) {
                body = HttpRequest.BodyPublishers.ofByteArray(in.readAllBytes());
            }
        }
        return builder.method(http.method().name(), body).build();
    }

    private static HttpExecuteResponse response(HttpResponse<byte[]> response) {
        // The SDK's builder copies the headers into its own case-insensitive map.
        return HttpExecuteResponse.builder()
                .response(SdkHttpFullResponse.builder().statusCode(response.statusCode())
                        .headers(response.headers().map()).build())
                .responseBody(AbortableInputStream.create(new ByteArrayInputStream(response.body())))
                .build();
    }
}
