package dev.oncepay.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Free loopback ports for servers a run starts itself. The kernel may hand the same ephemeral port
 * to two probes in a row once the first probe's socket is closed, so every port this JVM handed out
 * is remembered and never handed out again: two servers of one run never get the same port.
 */
public final class FreePorts {

    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private FreePorts() {
    }

    /** A port free right now, not handed out before by this JVM and not among {@code taken}. */
    public static synchronized int next(int... taken) {
        while (true) {
            int port = probe();
            if (!HANDED_OUT.contains(port) && !contains(taken, port)) {
                HANDED_OUT.add(port);
                return port;
            }
        }
    }

    /** {@code n} distinct ports, each as {@link #next(int...)} gives them. */
    public static List<Integer> distinct(int n) {
        List<Integer> ports = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ports.add(next());
        }
        return ports;
    }

    private static int probe() {
        try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean contains(int[] ports, int port) {
        for (int p : ports) {
            if (p == port) {
                return true;
            }
        }
        return false;
    }
}
