package dev.oncepay.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.oncepay.contract.DeploymentSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A static AppCDS archive per function, so that its sandboxes map the classes their init loads
 * (Quarkus, the AWS SDK, the app, and the lambda proxies they spin: thousands) instead of loading
 * and verifying each again. A training sandbox of the function (the sandboxes' own flags plus
 * {@code -XX:DumpLoadedClassList}, and {@code ONCEPAY_PRIMING_AT_INIT=true} so the app runs its
 * request path during init, once: the classes are loaded in the first round) is stopped with SIGTERM as soon as it polls for its first invocation;
 * then a JVM with the sandboxes' flags and class path dumps the archive from that list
 * ({@code -Xshare:dump}). Static rather than dynamic ({@code -XX:ArchiveClassesAtExit}): JDK 17
 * keeps pre-Java 6 classes (joda-time's, which Quarkus' Lambda mapper loads) only in a static
 * archive, and a sandbox maps one archive instead of the JDK's plus its own
 * (docs/adr/0004-appcds-in-the-local-run.md).
 * The archive is kept under {@code <work-dir>/cds/}, named after the function and a key of what it
 * depends on: the task root's content, the JVM build and the sandboxes' class path (a JVM refuses
 * an archive whose class path jars changed). Local only: the Lambda managed runtime's JDK is
 * another build, which would refuse it (SnapStart is AWS's way).
 */
final class ClassDataArchive {
    private static final long INIT_TIMEOUT_SECONDS = 180;
    private static final long DUMP_TIMEOUT_SECONDS = 120;
    private static final long CHECK_TIMEOUT_SECONDS = 60;
    private static final String SOURCE = "cds";

    private ClassDataArchive() {
    }

    /**
     * The archive of each function in {@code environments}: the cached one, else a new one. A
     * function whose archive cannot be made, or cannot be used by this JVM, is left out with a
     * warning: its sandboxes start without one. Functions are trained one after the other: on
     * this 2-core machine three at once took longer (21.8 s against 19.1 s in sequence, noisy).
     *
     * @param environments each function's environment, as its sandboxes get it
     */
    static Map<String, Path> prepare(SandboxCommand command, Path taskRoot, Path workDir,
            Map<String, Map<String, String>> environments, long memoryMb) throws IOException {
        Path dir = workDir.resolve("cds");
        Files.createDirectories(dir);
        String key = key(taskRoot, command.classpath());
        Map<String, Path> usable = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, String>> f : environments.entrySet()) {
            String function = f.getKey();
            Path archive = archive(command, dir.resolve(function + "-" + key + ".jsa"), function, f.getValue(), memoryMb);
            if (archive != null) {
                usable.put(function, archive);
            }
        }
        return usable;
    }

    /** The function's usable archive, trained if need be; null (after a warning) if there is none. */
    private static Path archive(SandboxCommand command, Path archive, String function, Map<String, String> env,
            long memoryMb) {
        try {
            if (Files.isRegularFile(archive)) {
                String refused = refusal(command, archive);
                if (refused == null) {
                    Log.info(SOURCE, function + ": AppCDS archive " + archive + " (cached, " + megabytes(archive) + ")");
                    return archive;
                }
                Log.warn(SOURCE, function + ": the cached AppCDS archive " + archive + " cannot be used (" + refused
                        + "); training a new one");
                Files.delete(archive);
            }
            long started = System.nanoTime();
            String failure = train(command, archive, function, env, memoryMb);
            if (failure != null) {
                Log.warn(SOURCE, function + ": no AppCDS archive (" + failure + "); its sandboxes start without one");
                return null;
            }
            String refused = refusal(command, archive);
            if (refused != null) {
                Log.warn(SOURCE, function + ": this JVM cannot use the AppCDS archive it just wrote (" + refused
                        + "); its sandboxes start without one");
                return null;
            }
            Log.info(SOURCE, String.format(Locale.ROOT, "%s: AppCDS archive %s (trained in %.1f s, %s)", function, archive,
                    (System.nanoTime() - started) / 1e9, megabytes(archive)));
            return archive;
        } catch (IOException e) {
            Log.warn(SOURCE, function + ": no AppCDS archive (" + e + "); its sandboxes start without one");
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Runs one training sandbox until its init is done, stops it, and dumps the archive from the
     * classes it loaded.
     *
     * @return null when {@code archive} was written, else why not
     */
    private static String train(SandboxCommand command, Path archive, String function, Map<String, String> env,
            long memoryMb) throws IOException, InterruptedException {
        Path temp = archive.resolveSibling(archive.getFileName() + ".tmp");
        Path classList = archive.resolveSibling(function + "-training.classlist");
        Files.deleteIfExists(temp);
        Files.deleteIfExists(classList);
        Map<String, String> trainingEnv = new LinkedHashMap<>(env);
        trainingEnv.put(DeploymentSettings.ENV_PRIMING_AT_INIT, "true");
        trainingEnv.put(DeploymentSettings.ENV_PRIMING_ROUNDS, "1");
        TrainingRuntimeApi api = TrainingRuntimeApi.start();
        Process process = null;
        try {
            process = ChildProcesses.start(command.trainingBuilder(function, api.port(), memoryMb, trainingEnv, classList),
                    function + "#cds-training");
            Log.info(SOURCE, function + ": training an AppCDS archive (a sandbox that runs its init, pid "
                    + process.pid() + ")");
            CompletableFuture<Object> initDone = CompletableFuture.anyOf(api.polled, process.onExit());
            try {
                initDone.get(INIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                return "its init took more than " + INIT_TIMEOUT_SECONDS + " s";
            } catch (ExecutionException e) {
                return String.valueOf(e.getCause());
            }
            if (!api.polled.isDone()) {
                return "the training sandbox exited during init with status " + process.exitValue()
                        + (api.initError != null ? ": " + api.initError : "");
            }
            // The JVM completes the class list on its way out.
            process.destroy();
            if (!process.waitFor(DUMP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                return "the training sandbox did not exit within " + DUMP_TIMEOUT_SECONDS + " s of SIGTERM";
            }
            if (!Files.isRegularFile(classList) || Files.size(classList) == 0) {
                return "the training sandbox exited (status " + process.exitValue() + ") without listing its classes in "
                        + classList;
            }
            String failure = dump(command, classList, temp, archive.resolveSibling(function + "-dump.log"));
            if (failure != null) {
                return failure;
            }
            Files.move(temp, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            deleteOthers(archive, function);
            return null;
        } finally {
            if (process != null && process.isAlive()) {
                ChildProcesses.kill(process);
            }
            api.stop();
            Files.deleteIfExists(temp);
        }
    }

    /** Dumps {@code archive} from {@code classList}; null when it was written, else why not. */
    private static String dump(SandboxCommand command, Path classList, Path archive, Path log)
            throws IOException, InterruptedException {
        Process dump = command.archiveDump(classList, archive, log).start();
        dump.getOutputStream().close();
        if (!dump.waitFor(DUMP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            ChildProcesses.kill(dump);
            return "dumping the archive took more than " + DUMP_TIMEOUT_SECONDS + " s";
        }
        if (dump.exitValue() != 0 || !Files.isRegularFile(archive) || Files.size(archive) == 0) {
            return "dumping the archive from " + classList + " failed (status " + dump.exitValue() + "); its messages are in "
                    + log;
        }
        return null;
    }

    /** Null if this JVM maps {@code archive} with the sandboxes' flags and class path, else its reason. */
    private static String refusal(SandboxCommand command, Path archive) throws IOException, InterruptedException {
        Process check = command.archiveCheck(archive).start();
        check.getOutputStream().close();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = check.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!check.waitFor(CHECK_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            check.destroyForcibly();
            return "checking it took more than " + CHECK_TIMEOUT_SECONDS + " s";
        }
        if (check.exitValue() == 0) {
            return null;
        }
        List<String> reasons = new ArrayList<>();
        for (String line : output.join().split("\\R")) {
            String l = line.trim();
            if (!l.isEmpty() && !l.startsWith("Error: Could not create the Java Virtual Machine")
                    && !l.startsWith("Error: A fatal exception has occurred")) {
                reasons.add(l);
            }
        }
        return reasons.isEmpty() ? "exit status " + check.exitValue() : String.join("; ", reasons);
    }

    /** Earlier archives of the function (another package or JVM): never used again. */
    private static void deleteOthers(Path archive, String function) throws IOException {
        try (DirectoryStream<Path> old = Files.newDirectoryStream(archive.getParent(), function + "-*.jsa")) {
            for (Path p : old) {
                if (!p.equals(archive)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** What an archive depends on: the task root's files (paths and bytes), the JVM build, the sandboxes' class path. */
    static String key(Path taskRoot, String classpath) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(taskRoot)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        byte[] buffer = new byte[1 << 16];
        for (Path file : files) {
            digest.update(taskRoot.relativize(file).toString().getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            try (InputStream in = Files.newInputStream(file)) {
                for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                    digest.update(buffer, 0, n);
                }
            }
            digest.update((byte) 0);
        }
        digest.update(System.getProperty("java.vm.version").getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
        digest.update(classpath.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest.digest(), 0, 8);
    }

    private static String megabytes(Path file) throws IOException {
        return String.format(Locale.ROOT, "%.0f MB", Files.size(file) / 1048576.0);
    }

    /**
     * The Runtime API a training sandbox sees: it never hands out an invocation; the first
     * {@code GET /invocation/next} says that init is done.
     */
    private static final class TrainingRuntimeApi {
        final CompletableFuture<Void> polled = new CompletableFuture<>();
        volatile String initError;
        private final HttpServer server;
        private final ExecutorService threads;

        private TrainingRuntimeApi() throws IOException {
            threads = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "cds-training-runtime-api");
                t.setDaemon(true);
                return t;
            });
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
            server.setExecutor(threads);
            server.createContext("/", this::handle);
            server.start();
        }

        static TrainingRuntimeApi start() throws IOException {
            return new TrainingRuntimeApi();
        }

        int port() {
            return server.getAddress().getPort();
        }

        private void handle(HttpExchange exchange) throws IOException {
            String path = exchange.getRequestURI().getPath();
            if (path.endsWith("/runtime/invocation/next")) {
                // Left unanswered: the sandbox waits here until it is stopped.
                polled.complete(null);
                return;
            }
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                if (path.endsWith("/runtime/init/error")) {
                    initError = new String(body, StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(202, -1);
                } else {
                    exchange.sendResponseHeaders(404, -1);
                }
            }
        }

        void stop() {
            server.stop(0);
            threads.shutdownNow();
        }
    }
}
