package dev.oncepay.local;

import dev.oncepay.contract.TableSchema;
import dev.oncepay.testkit.StoreFaultProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * dynalite (the DynamoDB-compatible server from {@code npm ci}) on 127.0.0.1, with oncepay's table
 * created from the application's own schema. It exits by itself when the local run's JVM is gone
 * (end of its stdin), so it never outlives the run.
 */
final class LocalDynamo implements AutoCloseable {
    /**
     * Runs dynalite's CLI, plus an exit when the parent closes our stdin, and a header on each answer
     * with the time dynalite took on it (request headers read to answer sent, in µs), which the store
     * fault proxy adds up and drops: the bench tells dynalite's own work from the HTTP hop to it.
     */
    private static final String WRAPPER = String.join("\n",
            "const http = require('http');",
            "const emit = http.Server.prototype.emit;",
            "http.Server.prototype.emit = function (event, req, res) {",
            "  if (event === 'request') {",
            "    const start = process.hrtime.bigint();",
            "    const end = res.end;",
            "    res.end = function (...args) {",
            "      if (!res.headersSent) {",
            "        res.setHeader('" + StoreFaultProxy.HANDLED_MICROS_HEADER + "', String((process.hrtime.bigint() - start) / 1000n));",
            "      }",
            "      return end.apply(this, args);",
            "    };",
            "  }",
            "  return emit.apply(this, arguments);",
            "};",
            "process.stdin.on('end', () => process.exit(0));",
            "process.stdin.on('error', () => process.exit(0));",
            "process.stdin.resume();",
            "process.on('SIGTERM', () => process.exit(0));",
            // node -e leaves argv as [node, cli.js, ...options]: just what the CLI expects.
            "require(process.argv[1]);");

    private final Process process;
    private final int port;

    private LocalDynamo(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static LocalDynamo start(Path projectRoot, int port, Path dataDir) throws IOException {
        Path cli = projectRoot.resolve("node_modules/dynalite/cli.js");
        if (!Files.exists(cli)) {
            throw new IllegalStateException("dynalite is not installed: run `npm ci` in " + projectRoot);
        }
        List<String> command = new ArrayList<>(List.of("node", "-e", WRAPPER, cli.toString(),
                "--host", "127.0.0.1", "--port", Integer.toString(port),
                "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"));
        if (dataDir != null) {
            Files.createDirectories(dataDir);
            command.addAll(List.of("--path", dataDir.toAbsolutePath().toString()));
        }
        Process process;
        try {
            process = ChildProcesses.start(new ProcessBuilder(command), "dynalite");
        } catch (IOException e) {
            throw new IOException("cannot start dynalite: is Node.js (20+) installed and on PATH?", e);
        }
        LocalDynamo dynamo = new LocalDynamo(process, port);
        dynamo.awaitListening(Duration.ofSeconds(30));
        return dynamo;
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    void createTable(String table) {
        try (DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint()))
                .region(Region.of(SandboxCommand.REGION))
                .httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .build()) {
            TableSchema.createIfMissing(client, table);
        }
    }

    private void awaitListening(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("dynalite exited with status " + process.exitValue()
                        + " (is port " + port + " free?)");
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for dynalite", e);
                }
            }
        }
        throw new IOException("dynalite did not listen on port " + port + " within " + timeout.toSeconds() + " s");
    }

    @Override
    public void close() {
        ChildProcesses.stop(process, Duration.ofSeconds(3));
    }
}
