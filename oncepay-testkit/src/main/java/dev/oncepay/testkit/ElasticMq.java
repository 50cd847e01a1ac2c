package dev.oncepay.testkit;

import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;

/**
 * The SQS-compatible server of the tests and the local run: ElasticMQ, in the JVM that starts it,
 * on a free 127.0.0.1 port (or a given one). In memory: every start begins with no queues.
 */
public final class ElasticMq implements AutoCloseable {
    private final SQSRestServer server;
    private final int port;

    private ElasticMq(SQSRestServer server, int port) {
        this.server = server;
        this.port = port;
    }

    /** Starts on {@code port}, or a free one for 0; returns once it accepts requests. */
    public static ElasticMq start(int port) {
        int chosen = port == 0 ? Dynalite.freePort() : port;
        SQSRestServer server = SQSRestServerBuilder.withInterface("127.0.0.1").withPort(chosen).start();
        server.waitUntilStarted();
        return new ElasticMq(server, chosen);
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        server.stopAndWait();
    }
}
