package dev.oncepay.testing;

import dev.oncepay.http.RawHttpRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback HTTP/1.1 peer scripted at the socket, for tests of a transport whose own behaviour
 * decides (the provider's and the store's HTTP clients): it runs its script per accepted
 * connection and counts connections and requests, and keeps every request as it arrived.
 */
public final class ScriptedHttpServer implements AutoCloseable {
    private final ServerSocket socket;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<RawHttpRequest> requests = new CopyOnWriteArrayList<>();
    private final Thread server;

    public ScriptedHttpServer(Script script) {
        try {
            socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server = new Thread(() -> {
            while (!socket.isClosed()) {
                try {
                    Socket accepted = socket.accept();
                    connections.incrementAndGet();
                    Thread serving = new Thread(() -> {
                        try (Socket connection = accepted) {
                            script.serve(new Connection(connection, requests));
                        } catch (IOException brokenOff) {
                            // the client went away: the test asserts what it saw
                        }
                    }, "scripted-http-connection");
                    serving.setDaemon(true);
                    serving.start();
                } catch (IOException closed) {
                    // by close()
                }
            }
        }, "scripted-http");
        server.setDaemon(true);
        server.start();
    }

    public int port() {
        return socket.getLocalPort();
    }

    public int connections() {
        return connections.get();
    }

    public int requests() {
        return requests.size();
    }

    /** The requests in the order they were read. */
    public List<RawHttpRequest> received() {
        return List.copyOf(requests);
    }

    @Override
    public void close() throws Exception {
        socket.close();
        server.join(5000);
    }

    /** The servers (and other loopback peers) a test started, for its {@code @AfterEach} to close. */
    public static final class Started implements AutoCloseable {
        private final List<AutoCloseable> started = new ArrayList<>();

        public ScriptedHttpServer start(Script script) {
            return closedAfterTheTest(new ScriptedHttpServer(script));
        }

        public <T extends AutoCloseable> T closedAfterTheTest(T peer) {
            started.add(peer);
            return peer;
        }

        @Override
        public void close() throws Exception {
            for (AutoCloseable peer : started) {
                peer.close();
            }
            started.clear();
        }
    }

    /** What the server does with one accepted connection. */
    @FunctionalInterface
    public interface Script {
        void serve(Connection connection) throws IOException;
    }

    /** One accepted connection, as a script sees it. */
    public record Connection(Socket socket, List<RawHttpRequest> requests) {
        /** Reads one request (head and body) and keeps it. */
        public RawHttpRequest readRequest() throws IOException {
            RawHttpRequest request = RawHttpRequest.read(socket.getInputStream());
            requests.add(request);
            return request;
        }

        /** Reads one request, then waits until the client closes the connection: a store or provider that stalls. */
        public void readRequestThenStall(CountDownLatch closedByClient) throws IOException {
            readRequest();
            if (closedByClientWithin(Duration.ofSeconds(30))) {
                closedByClient.countDown();
            }
        }

        public void write(String raw) throws IOException {
            socket.getOutputStream().write(raw.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
        }

        /** A 200 with {@code json} and {@code extraHeaders} (each ending in CRLF), the connection kept alive. */
        public void answer(String json, String extraHeaders) throws IOException {
            write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extraHeaders + "Content-Length: "
                    + json.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + json);
        }

        public void answer(String json) throws IOException {
            answer(json, "");
        }

        /** Closing now sends a reset instead of a FIN. */
        public void reset() throws IOException {
            socket.setSoLinger(true, 0);
        }

        /** Whether the client closed (or reset) the connection within {@code wait}. */
        public boolean closedByClientWithin(Duration wait) throws IOException {
            socket.setSoTimeout((int) wait.toMillis());
            try {
                return socket.getInputStream().read() < 0;
            } catch (SocketTimeoutException stillOpen) {
                return false;
            } catch (IOException reset) {
                return true;
            }
        }
    }
}
