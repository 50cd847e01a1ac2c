package dev.oncepay.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * The DynamoDB-compatible test server (dynalite, installed by {@code npm ci}) as a child process
 * on a free 127.0.0.1 port. In memory: every JVM starts from an empty store.
 */
public final class Dynalite implements AutoCloseable {
    private final Process process;
    private final int port;

    private Dynalite(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    public static Dynalite start() {
        Path cli = projectRoot().resolve("node_modules/dynalite/cli.js");
        if (!Files.exists(cli)) {
            throw new IllegalStateException("dynalite is not installed: run `npm ci` in " + projectRoot());
        }
        int port = FreePorts.next();
        try {
            Process process = new ProcessBuilder("node", cli.toString(), "--port", Integer.toString(port),
                    "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            Dynalite dynalite = new Dynalite(process, port);
            dynalite.awaitListening(Duration.ofSeconds(30));
            return dynalite;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start dynalite (is Node.js installed?)", e);
        }
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        process.destroy();
    }

    private void awaitListening(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("dynalite exited with " + process.exitValue());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50); // polling a port that is about to open; bounded by the deadline
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new IllegalStateException("dynalite did not listen on port " + port + " within " + timeout);
    }

    static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("package.json"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no package.json above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
