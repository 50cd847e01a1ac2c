package dev.oncepay.http;

import java.net.http.HttpClient;
import java.time.Duration;

/**
 * A JDK {@link HttpClient} for one of oncepay's transports (store, provider), built at first use
 * and dropped by {@link #forgetConnections()}, with what both need: HTTP/1.1 only (the default
 * {@code HTTP_2} tries an {@code h2c} upgrade on {@code http://}), no redirects, a connect timeout,
 * and a direct executor. The executor: callers use the blocking {@code send}, which writes the
 * request on the calling thread; the answer is then read on the client's selector thread, which
 * wakes the caller, instead of passing through a worker thread as well. Body subscribers must
 * therefore never block.
 */
public final class RenewableHttpClient {
    private final Duration connectTimeout;
    private volatile HttpClient client;

    public RenewableHttpClient(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public HttpClient client() {
        HttpClient current = client;
        if (current == null) {
            synchronized (this) {
                current = client;
                if (current == null) {
                    current = HttpClient.newBuilder()
                            .version(HttpClient.Version.HTTP_1_1)
                            .followRedirects(HttpClient.Redirect.NEVER)
                            .connectTimeout(connectTimeout)
                            .executor(Runnable::run)
                            .build();
                    client = current;
                }
            }
        }
        return current;
    }

    /**
     * Builds the client on a daemon thread now, so that its first call finds it ready. The first
     * client a JVM builds also initializes the JDK's default TLS context (the CA certificates read
     * and parsed, about 90 ms of a cold sandbox's first request here); started at init, that runs
     * beside the rest of init and of the first request. A call meanwhile waits for this build; a
     * build that fails is left to the next call, which tries again and reports it.
     */
    public void buildInBackground(String threadName) {
        Thread builder = new Thread(() -> {
            try {
                client();
            } catch (RuntimeException e) {
                // the next call builds it and fails where it can be reported
            }
        }, threadName);
        builder.setDaemon(true);
        builder.start();
    }

    /** Whether a client is built (for tests). */
    public boolean built() {
        return client != null;
    }

    /**
     * Drops the client and with it its pooled connections (its selector thread ends once the client
     * is unreachable): after a SnapStart restore, on another host and maybe days later, no
     * connection of the snapshot is reused. The next call builds a fresh client.
     */
    public void forgetConnections() {
        client = null;
    }
}
