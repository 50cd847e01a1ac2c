package dev.oncepay.delivery;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.events.MerchantEndpoint;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One delivery's HTTP POST to a merchant endpoint: the event body as it is, signed, no redirect
 * followed, connect to last byte within {@code oncepay.events.call-timeout}. The answer's body is
 * read up to {@value #ANSWER_BYTES} bytes and dropped: only the status counts, and a merchant's
 * words are not oncepay's to keep.
 */
@ApplicationScoped
public class EndpointCall {
    static final String USER_AGENT = "oncepay-events";
    static final String EVENT_ID_HEADER = "Oncepay-Event-Id";
    /** Enough for any acknowledgement; a longer answer is cut off, not waited for. */
    static final int ANSWER_BYTES = 4096;

    private final Duration timeout;
    // The JDK client, not the REST client the providers use: deliveries go to arbitrary per-tenant URLs with no typed API.
    private final HttpClient client;

    public EndpointCall(OncepayConfig config) {
        this.timeout = config.events().callTimeout();
        this.client = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(timeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /** Posts {@code body} to {@code endpoint} with {@code signature}; never throws for what the endpoint does. */
    public CallOutcome post(MerchantEndpoint endpoint, String eventId, String body, String signature) {
        HttpRequest request = HttpRequest.newBuilder(endpoint.url())
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header("User-Agent", USER_AGENT)
                .header(DeploymentSettings.EVENT_SIGNATURE_HEADER, signature)
                .header(EVENT_ID_HEADER, eventId)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        CompletableFuture<HttpResponse<Void>> call = client.sendAsync(request, info -> new CappedDiscard());
        try {
            int status = call.get(timeout.toMillis(), TimeUnit.MILLISECONDS).statusCode();
            if (status >= 200 && status < 300) {
                return new CallOutcome.Acknowledged(status);
            }
            return new CallOutcome.Failed(status >= 300 && status < 400 ? "redirect " + status : Integer.toString(status));
        } catch (TimeoutException late) {
            call.cancel(true);
            return new CallOutcome.Failed("timeout");
        } catch (InterruptedException interrupted) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            return new CallOutcome.Failed("interrupted");
        } catch (ExecutionException failed) {
            return new CallOutcome.Failed(answerOf(failed.getCause()));
        }
    }

    /** A short, fixed phrase: an exception's own message may carry the URL. */
    static String answerOf(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof HttpConnectTimeoutException || cause instanceof HttpTimeoutException) {
                return "timeout";
            }
            if (cause instanceof ConnectException) {
                return "connection refused";
            }
        }
        return failure instanceof IOException ? "connection failed" : "call failed";
    }

    /** Reads the answer's body up to {@link #ANSWER_BYTES} and keeps none of it. */
    private static final class CappedDiscard implements HttpResponse.BodySubscriber<Void> {
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private Flow.Subscription subscription;
        private long read;

        @Override
        public CompletionStage<Void> getBody() {
            return done;
        }

        @Override
        public void onSubscribe(Flow.Subscription value) {
            subscription = value;
            value.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            for (ByteBuffer buffer : buffers) {
                read += buffer.remaining();
            }
            if (read > ANSWER_BYTES) {
                subscription.cancel();
                done.complete(null);
            }
        }

        @Override
        public void onError(Throwable failure) {
            done.completeExceptionally(failure);
        }

        @Override
        public void onComplete() {
            done.complete(null);
        }
    }
}
