package dev.oncepay.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The local run as {@code run-local.sh} starts it, for tests and the drill that drive it from
 * outside: the same entry point in a JVM of its own on the test classpath, tied to this JVM with
 * {@code --parent-pid}; every line it prints goes to the caller, who reads what the functions
 * logged.
 */
public final class LocalRunChild implements AutoCloseable {
    private final Process process;
    private final CountDownLatch ready = new CountDownLatch(1);

    private LocalRunChild(Process process, Consumer<String> eachLine) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    eachLine.accept(line);
                    if (line.contains(LocalRun.READY)) {
                        ready.countDown();
                    }
                }
            } catch (IOException ended) {
                // the run's output closed
            }
        }, "local-run-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code LocalRun} with {@code args} (plus {@code --parent-pid}) in the project root;
     * {@code eachLine} gets its output, stdout and stderr, line by line on one thread.
     */
    public static LocalRunChild start(List<String> args, Consumer<String> eachLine) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        // On the tests' class path (the functions') the JBoss log manager complains unless it is
        // java.util.logging's; on drill.sh's it is absent, and naming it would fail java.util.logging's start.
        if (LocalRunChild.class.getClassLoader().getResource("org/jboss/logmanager/LogManager.class") != null) {
            command.add("-Djava.util.logging.manager=org.jboss.logmanager.LogManager");
        }
        command.addAll(List.of("-cp", testClasspath(), LocalRun.class.getName()));
        command.addAll(args);
        command.addAll(List.of("--parent-pid", Long.toString(ProcessHandle.current().pid())));
        try {
            return new LocalRunChild(new ProcessBuilder(command).directory(LocalRun.projectRoot().toFile())
                    .redirectErrorStream(true).start(), eachLine);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the local run", e);
        }
    }

    /** @return false when the run did not announce itself ready in time (or died) */
    public boolean awaitReady(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (ready.await(500, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (!process.isAlive()) {
                return false;
            }
        }
        return false;
    }

    /** The processes the run started (sandboxes, dynalite), live or not. */
    public Stream<ProcessHandle> descendants() {
        return process.descendants();
    }

    /** SIGTERM (the run stops every process it started), then SIGKILL for whatever is left. */
    @Override
    public void close() {
        List<ProcessHandle> children = process.descendants().toList();
        process.toHandle().destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    /** Surefire may hand the test JVM a manifest-only jar; the real test classpath is in its own property. */
    static String testClasspath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }
}
