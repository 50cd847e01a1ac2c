package dev.oncepay.testing;

import dev.oncepay.contract.DeploymentSettings;
import io.quarkus.amazon.lambda.runtime.AmazonLambdaApi;
import io.quarkus.test.common.JarArtifactLauncher;
import io.quarkus.test.common.ListeningAddress;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * How {@code @QuarkusIntegrationTest} starts the JVM artifact here: {@code target/function.zip}
 * as Lambda's {@code java21} runtime runs it. The zip is unpacked into a task root, and a JVM with
 * the Lambda runtime's flags runs AWS's runtime interface client with the deployed handler; the
 * client loads the function from the task root through its own class loader, polls the test run's
 * Lambda mock event server as its Runtime API, and the application reads the test's settings as
 * system properties. Quarkus' own jar launcher would run {@code java -jar} of the runner, which
 * has no poll loop in a JVM build (only a native binary polls by itself); the native profile's
 * integration tests run the binary with Quarkus' native launcher.
 *
 * <p>Registered for {@code JarArtifactLauncher} in {@code META-INF/services}, which Quarkus' jar
 * launcher provider consults before using its own.
 */
public final class LambdaZipLauncher implements JarArtifactLauncher {
    /** Quarkus' start line, which a function logs once its application is up (and it then polls). */
    private static final String STARTED = " started in ";

    /** Where the runtime interface client loads its native library from, when set (the managed runtime sets it too). */
    private static final String JNI_PROPERTY = "com.amazonaws.services.lambda.runtime.api.client.runtimeapi.NativeClient.JNI";

    private final Map<String, String> systemProperties = new HashMap<>();
    private Path zip;
    private Duration waitTime;
    private List<String> argLine;
    private Map<String, String> env;
    private Process process;

    @Override
    public void init(JarInitContext context) {
        // Quarkus names the runner jar; what Lambda runs is the zip the build made beside it.
        this.zip = context.jarPath().resolveSibling("function.zip");
        this.waitTime = context.waitTime();
        this.argLine = context.argLine();
        this.env = context.env();
    }

    @Override
    public void includeAsSysProps(Map<String, String> properties) {
        systemProperties.putAll(properties);
    }

    @Override
    public Optional<ListeningAddress> start() throws IOException {
        String runtimeApi = systemProperties.get(AmazonLambdaApi.QUARKUS_INTERNAL_AWS_LAMBDA_TEST_API);
        if (runtimeApi == null) {
            throw new IllegalStateException("no Lambda mock event server: the test run did not pass "
                    + AmazonLambdaApi.QUARKUS_INTERNAL_AWS_LAMBDA_TEST_API);
        }
        if (!Files.isRegularFile(zip)) {
            throw new IllegalStateException(zip + " is missing: the package phase builds it");
        }
        String function = systemProperties.getOrDefault("quarkus.funqy.export", "charge");
        Path work = zip.resolveSibling("integration-test");
        Path taskRoot = unpack(zip, work.resolve("task-" + function));

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // The flags Lambda's Java runtime starts its JVM with.
        command.addAll(List.of("-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-XX:-UsePerfData", "-Djava.net.preferIPv4Stack=true", "-Xmx512m"));
        command.add("-D" + JNI_PROPERTY + "=" + jniLibrary(work));
        command.addAll(argLine);
        systemProperties.forEach((name, value) -> command.add("-D" + name + "=" + value));
        command.addAll(List.of("-cp", runtimeClientClasspath(),
                com.amazonaws.services.lambda.runtime.api.client.AWSLambda.class.getName(), DeploymentSettings.JVM_HANDLER));

        ProcessBuilder builder = new ProcessBuilder(command).directory(taskRoot.toFile()).redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        String path = environment.get("PATH");
        environment.clear();
        environment.put("PATH", path);
        environment.put("_HANDLER", DeploymentSettings.JVM_HANDLER);
        environment.put("AWS_LAMBDA_RUNTIME_API", runtimeApi);
        environment.put("LAMBDA_TASK_ROOT", taskRoot.toString());
        environment.put("AWS_LAMBDA_FUNCTION_NAME", function);
        environment.put("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST");
        environment.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024");
        environment.put("AWS_REGION", "us-east-1");
        environment.put("TZ", ":UTC");
        environment.putAll(env);
        System.out.println("[LambdaZipLauncher] " + function + ": " + String.join(" ", command));
        process = builder.start();
        awaitStart(process, work.resolve(function + ".log"));
        return Optional.empty();
    }

    /** Copies the function's output to the test's and to {@code log}; returns once the application has started. */
    private void awaitStart(Process started, Path log) throws IOException {
        CountDownLatch up = new CountDownLatch(1);
        PrintStream file = new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8);
        Thread pump = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8));
                    file) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    System.out.println(line);
                    file.println(line);
                    if (line.contains(STARTED)) {
                        up.countDown();
                    }
                }
            } catch (IOException closed) {
                // the process ended
            }
        }, "function-output");
        pump.setDaemon(true);
        pump.start();
        try {
            long deadline = System.nanoTime() + waitTime.toNanos();
            while (!up.await(100, TimeUnit.MILLISECONDS)) {
                if (!started.isAlive()) {
                    throw new IllegalStateException("the function exited with " + started.exitValue() + " before it started: see " + log);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the function did not start within " + waitTime + ": see " + log);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The runtime interface client and what it needs, from the test's own class path. */
    private static String runtimeClientClasspath() {
        Set<String> jars = new LinkedHashSet<>();
        for (Class<?> c : List.of(com.amazonaws.services.lambda.runtime.api.client.AWSLambda.class,
                com.amazonaws.services.lambda.runtime.RequestStreamHandler.class,
                com.amazonaws.services.lambda.runtime.serialization.PojoSerializer.class,
                software.amazon.awssdk.utilslite.SdkInternalThreadLocal.class)) {
            try {
                jars.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return String.join(File.pathSeparator, jars);
    }

    /**
     * The client's native library for this machine, unpacked into {@code work}. Left to itself, every
     * client writes it to the same {@code /tmp/.libaws-lambda-jni.so}, which a client of another build
     * on this machine may be writing at the same moment.
     */
    private static String jniLibrary(Path work) throws IOException {
        String cpu = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch_64";
            default -> throw new IllegalStateException("the runtime interface client has no library for " + System.getProperty("os.arch"));
        };
        boolean musl = Files.exists(Path.of("/lib/ld-musl-" + (cpu.equals("x86_64") ? "x86_64" : "aarch64") + ".so.1"));
        String name = "libaws-lambda-jni.linux" + (musl ? "_musl-" : "-") + cpu + ".so";
        Path target = work.resolve(name);
        Files.createDirectories(work);
        try (InputStream in = com.amazonaws.services.lambda.runtime.api.client.AWSLambda.class.getResourceAsStream("/jni/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the runtime interface client jar has no /jni/" + name);
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return target.toString();
    }

    /** The zip unpacked as Lambda unpacks it into {@code /var/task}. */
    private static Path unpack(Path zip, Path taskRoot) throws IOException {
        if (Files.exists(taskRoot)) {
            try (Stream<Path> old = Files.walk(taskRoot)) {
                old.sorted(Comparator.reverseOrder()).forEach(p -> {
                    try {
                        Files.delete(p);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
        Files.createDirectories(taskRoot);
        Path root = taskRoot.toAbsolutePath().normalize();
        try (InputStream in = Files.newInputStream(zip); ZipInputStream entries = new ZipInputStream(in)) {
            for (ZipEntry entry = entries.getNextEntry(); entry != null; entry = entries.getNextEntry()) {
                Path target = root.resolve(entry.getName()).normalize();
                if (!target.startsWith(root)) {
                    throw new IOException("unsafe entry in " + zip + ": " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(entries, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return root;
    }

    @Override
    public LaunchResult runToCompletion(String[] args) {
        throw new UnsupportedOperationException("a Lambda function is invoked through its Runtime API, not run to completion");
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
