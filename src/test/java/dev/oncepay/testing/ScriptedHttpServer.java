package dev.oncepay.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
    private final List<RawRequest> requests = new CopyOnWriteArrayList<>();
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
    public List<RawRequest> received() {
        return List.copyOf(requests);
    }

    @Override
    public void close() throws Exception {
        socket.close();
        server.join(5000);
    }

    /** What the server does with one accepted connection. */
    @FunctionalInterface
    public interface Script {
        void serve(Connection connection) throws IOException;
    }

    /** One request as it arrived: its head lines (request line first) and its body. */
    public record RawRequest(List<String> head, byte[] body) {
        /** Every value of header {@code name} (case-insensitive), in arrival order. */
        public List<String> header(String name) {
            List<String> values = new ArrayList<>();
            for (String line : head.subList(1, head.size())) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    values.add(line.substring(colon + 1).trim());
                }
            }
            return values;
        }
    }

    /** One accepted connection, as a script sees it. */
    public record Connection(Socket socket, List<RawRequest> requests) {
        /** Reads one request (head and body) and keeps it. */
        public RawRequest readRequest() throws IOException {
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("request ended in its head");
                }
                head.write(b);
                matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            List<String> lines = List.of(head.toString(StandardCharsets.US_ASCII).split("\r\n"));
            int length = 0;
            for (String line : lines) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring("content-length:".length()).trim());
                }
            }
            RawRequest request = new RawRequest(lines, in.readNBytes(length));
            requests.add(request);
            return request;
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
