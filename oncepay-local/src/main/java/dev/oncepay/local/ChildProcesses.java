package dev.oncepay.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Starting and stopping the local run's child processes, with their output tagged on the console. */
final class ChildProcesses {
    private ChildProcesses() {
    }

    /**
     * Starts {@code builder} with its stdout and stderr copied to the console line by line under
     * {@code source}. Its stdin stays an open pipe that is never written: the child treats end of
     * stdin as "the local run is gone" and exits, even when the local run was killed with SIGKILL.
     */
    static Process start(ProcessBuilder builder, String source) throws IOException {
        return start(builder, source, line -> {
        });
    }

    /** Like {@link #start(ProcessBuilder, String)}, and shows every output line to {@code observer} too. */
    static Process start(ProcessBuilder builder, String source, Consumer<String> observer) throws IOException {
        builder.redirectErrorStream(true);
        builder.redirectInput(ProcessBuilder.Redirect.PIPE);
        Process process = builder.start();
        pump(process.getInputStream(), source, observer);
        return process;
    }

    private static void pump(InputStream in, String source, Consumer<String> observer) {
        Thread t = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    Log.child(source, line);
                    observer.accept(line);
                }
            } catch (IOException closed) {
                // the process ended
            }
        }, "output-" + source);
        t.setDaemon(true);
        t.start();
    }

    /**
     * Asks {@code process} (and anything it started) to stop with SIGTERM, and kills what is still
     * alive after {@code grace}. Returns once all of them are gone (bounded by a few seconds more).
     */
    static void stop(Process process, Duration grace) {
        if (process == null) {
            return;
        }
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        descendants.forEach(ProcessHandle::destroy);
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
            for (ProcessHandle d : descendants) {
                if (d.isAlive()) {
                    d.destroyForcibly();
                    d.onExit().get(5, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            descendants.forEach(ProcessHandle::destroyForcibly);
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // best effort: reported by the caller's own checks
        }
    }

    /** Kills {@code process} and its descendants at once (SIGKILL), like Lambda ending a sandbox. */
    static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
