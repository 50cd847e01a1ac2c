package dev.oncepay.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback port whose connects never complete: a listener that accepts nothing, its accept queue
 * filled. Linux then drops further SYNs, so a client's connect waits out its connect timeout (the
 * JDK's {@code HttpConnectTimeoutException}), where a closed port would refuse at once.
 */
public final class FullListener implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Socket> queued = new ArrayList<>();

    private FullListener(ServerSocket listener) {
        this.listener = listener;
    }

    public static FullListener open() {
        try {
            FullListener full = new FullListener(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            full.fill();
            return full;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Connects until a connect no longer completes. */
    private void fill() throws IOException {
        for (int i = 0; i < 64; i++) {
            Socket socket = new Socket();
            queued.add(socket);
            try {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()), 300);
            } catch (SocketTimeoutException full) {
                return;
            }
        }
        throw new IllegalStateException("the accept queue never filled");
    }

    @Override
    public void close() throws IOException {
        for (Socket socket : queued) {
            socket.close();
        }
        listener.close();
    }
}
