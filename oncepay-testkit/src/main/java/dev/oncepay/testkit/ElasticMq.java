package dev.oncepay.testkit;

import java.util.concurrent.TimeUnit;
import org.apache.pekko.http.scaladsl.Http;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import scala.concurrent.Await;
import scala.concurrent.duration.FiniteDuration;

/**
 * The SQS-compatible server of the tests and the local run: ElasticMQ, in the JVM that starts it,
 * on a free 127.0.0.1 port (or a given one). In memory: every start begins with no queues.
 */
public final class ElasticMq implements AutoCloseable {
    /**
     * How long a stop lets requests still open finish. A long poll whose client has gone stays open
     * on the server until its wait ends (up to 20 s), and ElasticMQ's own stop would wait for it.
     */
    private static final FiniteDuration STOP_GRACE = FiniteDuration.apply(1, TimeUnit.SECONDS);
    private static final FiniteDuration STOP_WITHIN = FiniteDuration.apply(5, TimeUnit.SECONDS);

    private final SQSRestServer server;
    private final Http.ServerBinding binding;
    private final int port;

    private ElasticMq(SQSRestServer server, Http.ServerBinding binding, int port) {
        this.server = server;
        this.binding = binding;
        this.port = port;
    }

    /** Starts on {@code port}, or a free one for 0; returns once it accepts requests. */
    public static ElasticMq start(int port) {
        int chosen = port == 0 ? FreePorts.next() : port;
        SQSRestServer server = SQSRestServerBuilder.withInterface("127.0.0.1").withPort(chosen).start();
        return new ElasticMq(server, server.waitUntilStarted(), chosen);
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** Stops the server, cutting the requests still open after {@link #STOP_GRACE}. */
    @Override
    public void close() {
        try {
            Await.result(binding.terminate(STOP_GRACE), STOP_WITHIN);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // the stop below ends the server all the same
        }
        server.stopAndWait();
    }
}
