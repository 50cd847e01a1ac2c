package dev.oncepay.local;

import dev.oncepay.contract.DeploymentSettings;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * How a sandbox JVM is started: AWS's runtime interface client as its main class, the handler as
 * the only argument, the working directory the task root (the unpacked {@code function.zip}), the
 * Lambda Java runtime's JVM flags, and an environment made of Lambda's reserved variables plus the
 * function's own. The system class path holds the client and what it needs, then the function's
 * code, the way AWS documents the client's launch in a container image ({@code java -cp "./*"
 * ... AWSLambda <handler>}); the client's customer class loader still sees the task root, but
 * asks the system class loader first. Why not the task root alone, as the managed runtime has it:
 * JDK 17 keeps the lambda proxies only of its own class loaders in an AppCDS archive, and an
 * archived class of another loader costs a read of its bytes from the jar; with the function on the
 * class path, a charge sandbox's init and first invocation take 1100 ms instead of 1581 ms (median
 * of 8 interleaved pairs, docs/adr/0004-appcds-in-the-local-run.md). On AWS the zip variant starts
 * from a SnapStart snapshot instead.
 */
final class SandboxCommand {
    static final String HANDLER = DeploymentSettings.JVM_HANDLER;
    static final String REGION = "us-east-1";

    /** The runtime interface client reads its native library from here when set (the managed runtime sets it too). */
    static final String JNI_PROPERTY = "com.amazonaws.services.lambda.runtime.api.client.runtimeapi.NativeClient.JNI";

    /** Fixed, so the jars the local run writes for the class path depend on their content alone. */
    private static final LocalDateTime JAR_ENTRY_TIME = LocalDateTime.of(1980, 2, 1, 0, 0);

    private final Path java;
    private final String classpath;
    private final Path jniLibrary;
    private final Path taskRoot;
    private final String heap;
    private final String handler;
    /** Each function's AppCDS archive, for the functions that have one. */
    private final Map<String, Path> archives;

    SandboxCommand(Path taskRoot, Path workDir, String heap, String handler) throws IOException {
        this.java = Path.of(System.getProperty("java.home"), "bin", "java");
        this.classpath = runtimeClasspath(workDir) + File.pathSeparator + functionClasspath(taskRoot, workDir);
        this.jniLibrary = jniLibrary(workDir);
        this.taskRoot = taskRoot;
        this.heap = heap;
        this.handler = handler;
        this.archives = Map.of();
    }

    private SandboxCommand(SandboxCommand base, Map<String, Path> archives) {
        this.java = base.java;
        this.classpath = base.classpath;
        this.jniLibrary = base.jniLibrary;
        this.taskRoot = base.taskRoot;
        this.heap = base.heap;
        this.handler = base.handler;
        this.archives = Map.copyOf(archives);
    }

    /** The same command, whose sandboxes of each function in {@code archives} start from that AppCDS archive. */
    SandboxCommand withArchives(Map<String, Path> archives) {
        return new SandboxCommand(this, archives);
    }

    /**
     * @param function the Lambda function name (for the reserved variables)
     * @param functionEnv the function's configured environment
     */
    ProcessBuilder builder(String function, int runtimeApiPort, long memoryMb, Map<String, String> functionEnv) {
        Path archive = archives.get(function);
        // -Xshare:auto (among the runtime's flags) makes an archive this JVM cannot use cost speed, not the start.
        return builder(function, runtimeApiPort, memoryMb, functionEnv,
                archive == null ? List.of() : List.of("-XX:SharedArchiveFile=" + archive));
    }

    /**
     * A sandbox of {@code function} that lists each class it loads, lambda proxies included, in
     * {@code classList} ({@link ClassDataArchive} dumps the archive from it).
     */
    ProcessBuilder trainingBuilder(String function, int runtimeApiPort, long memoryMb, Map<String, String> functionEnv,
            Path classList) {
        return builder(function, runtimeApiPort, memoryMb, functionEnv, List.of("-XX:DumpLoadedClassList=" + classList));
    }

    /**
     * A JVM with the sandboxes' flags and class path that writes a static AppCDS archive of the
     * classes in {@code classList} and exits; what it says goes to {@code log}.
     */
    ProcessBuilder archiveDump(Path classList, Path archive, Path log) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmFlags());
        command.addAll(List.of("-Xshare:dump", "-XX:SharedClassListFile=" + classList, "-XX:SharedArchiveFile=" + archive,
                "-cp", classpath));
        return new ProcessBuilder(command).directory(taskRoot.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
    }

    /**
     * A JVM with the sandboxes' flags and class path that maps {@code archive} and exits:
     * {@code -Xshare:on} makes it fail, saying why, where a sandbox would silently start without it.
     */
    ProcessBuilder archiveCheck(Path archive) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmFlags());
        command.addAll(List.of("-Xshare:on", "-XX:SharedArchiveFile=" + archive, "-cp", classpath, "-version"));
        return new ProcessBuilder(command).directory(taskRoot.toFile()).redirectErrorStream(true);
    }

    private List<String> jvmFlags() {
        // The flags the Lambda Java runtime starts its JVM with, and a modest heap.
        return List.of("-Xmx" + heap, "-XX:+UseSerialGC", "-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1",
                "-Xshare:auto", "-XX:-UsePerfData", "-XX:+ErrorFileToStderr", "-Djava.net.preferIPv4Stack=true",
                "--add-opens=java.base/java.io=ALL-UNNAMED", "-D" + JNI_PROPERTY + "=" + jniLibrary);
    }

    private ProcessBuilder builder(String function, int runtimeApiPort, long memoryMb, Map<String, String> functionEnv,
            List<String> cdsFlags) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmFlags());
        command.addAll(cdsFlags);
        command.add("-cp");
        command.add(classpath);
        command.add(SandboxMain.class.getName());
        command.add(handler);

        ProcessBuilder builder = new ProcessBuilder(command).directory(taskRoot.toFile());
        Map<String, String> env = builder.environment();
        // A Lambda sandbox does not inherit the developer's shell (nor its AWS credentials).
        String path = env.get("PATH");
        env.clear();
        if (path != null) {
            env.put("PATH", path);
        }
        env.putAll(reservedVariables(function, runtimeApiPort, memoryMb));
        env.putAll(functionEnv);
        return builder;
    }

    private Map<String, String> reservedVariables(String function, int runtimeApiPort, long memoryMb) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("_HANDLER", handler);
        env.put(DeploymentSettings.ENV_LAMBDA_RUNTIME_API, "127.0.0.1:" + runtimeApiPort);
        env.put("LAMBDA_TASK_ROOT", taskRoot.toString());
        env.put("AWS_LAMBDA_FUNCTION_NAME", function);
        env.put("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST");
        env.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", Long.toString(memoryMb));
        env.put("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/" + function);
        env.put("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand");
        env.put("AWS_REGION", REGION);
        env.put("AWS_DEFAULT_REGION", REGION);
        // Lambda gives each sandbox its execution role's credentials; dynalite accepts any.
        env.put("AWS_ACCESS_KEY_ID", "local");
        env.put("AWS_SECRET_ACCESS_KEY", "local");
        env.put("AWS_SESSION_TOKEN", "local");
        env.put("TZ", ":UTC");
        env.put("LANG", "en_US.UTF-8");
        return env;
    }

    String classpath() {
        return classpath;
    }

    /**
     * The runtime's side of the classpath: a tiny jar with {@link SandboxMain}, the runtime
     * interface client and its dependencies, taken from this JVM's own classpath.
     */
    private static String runtimeClasspath(Path workDir) throws IOException {
        String entry = SandboxMain.class.getName().replace('.', '/') + ".class";
        byte[] main;
        try (InputStream in = SandboxMain.class.getClassLoader().getResourceAsStream(entry)) {
            if (in == null) {
                throw new IOException("cannot find " + entry + " on the classpath");
            }
            main = in.readAllBytes();
        }
        List<String> parts = new ArrayList<>();
        parts.add(writeJar(workDir.resolve("sandbox-bootstrap.jar"), new TreeMap<>(Map.of(entry, main))).toString());
        for (Class<?> c : List.of(
                com.amazonaws.services.lambda.runtime.api.client.AWSLambda.class,
                com.amazonaws.services.lambda.runtime.RequestStreamHandler.class,
                com.amazonaws.services.lambda.runtime.serialization.PojoSerializer.class,
                software.amazon.awssdk.utilslite.SdkInternalThreadLocal.class)) {
            String location = location(c);
            if (!parts.contains(location)) {
                parts.add(location);
            }
        }
        return String.join(File.pathSeparator, parts);
    }

    /**
     * The function's side of the classpath: the task root's own files as one jar (an AppCDS
     * archive takes jars on the class path, not directories), then its {@code lib/*.jar} in the
     * client's order (by name). The unpacked jars keep their entries' times ({@link TaskRoot}),
     * so the same package gives the same class path, modification times included.
     */
    private static String functionClasspath(Path taskRoot, Path workDir) throws IOException {
        Path lib = taskRoot.resolve("lib");
        SortedMap<String, byte[]> files = new TreeMap<>();
        List<String> jars = new ArrayList<>();
        try (Stream<Path> paths = Files.walk(taskRoot)) {
            for (Path file : paths.filter(Files::isRegularFile).sorted().toList()) {
                if (lib.equals(file.getParent()) && file.getFileName().toString().endsWith(".jar")) {
                    jars.add(file.toAbsolutePath().toString());
                } else {
                    files.put(taskRoot.relativize(file).toString().replace(File.separatorChar, '/'), Files.readAllBytes(file));
                }
            }
        }
        List<String> parts = new ArrayList<>();
        parts.add(writeJar(workDir.resolve("task-root.jar"), files).toString());
        parts.addAll(jars);
        return String.join(File.pathSeparator, parts);
    }

    /**
     * A jar of {@code entries}, in name order with a fixed time, written only when its bytes
     * change: an AppCDS archive records each class path jar's modification time and size, and is
     * refused by a JVM that finds them changed.
     */
    private static Path writeJar(Path target, SortedMap<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream jar = new ByteArrayOutputStream();
        try (JarOutputStream out = new JarOutputStream(jar)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                JarEntry jarEntry = new JarEntry(e.getKey());
                jarEntry.setTimeLocal(JAR_ENTRY_TIME);
                out.putNextEntry(jarEntry);
                out.write(e.getValue());
                out.closeEntry();
            }
        }
        byte[] content = jar.toByteArray();
        Files.createDirectories(target.getParent());
        if (!Files.isRegularFile(target) || !Arrays.equals(Files.readAllBytes(target), content)) {
            Path temp = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".tmp");
            Files.write(temp, content);
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return target.toAbsolutePath();
    }

    /**
     * The client's JNI library for this platform, unpacked once per local run. Left to itself, every
     * client unpacks it to the same {@code /tmp/.libaws-lambda-jni.so} (fine in a Lambda sandbox with
     * its own /tmp); sandboxes starting together here would overwrite it under each other's feet.
     */
    private static Path jniLibrary(Path workDir) throws IOException {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.toLowerCase(Locale.ROOT).contains("linux")) {
            throw new IOException("the Lambda runtime interface client runs on Linux only (it ships native code for "
                    + "Linux x86_64 and arm64, glibc or musl); this is " + os + " " + arch
                    + ". Run the local run in a Linux machine or VM.");
        }
        String cpu = switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch_64";
            default -> throw new IOException("no runtime interface client native library for CPU " + arch);
        };
        boolean musl = Files.exists(Path.of("/lib/ld-musl-" + (cpu.equals("x86_64") ? "x86_64" : "aarch64") + ".so.1"));
        String name = "libaws-lambda-jni.linux" + (musl ? "_musl-" : "-") + cpu + ".so";
        Path target = workDir.resolve("jni").resolve(name).toAbsolutePath();
        Files.createDirectories(target.getParent());
        try (InputStream in = com.amazonaws.services.lambda.runtime.api.client.AWSLambda.class
                .getResourceAsStream("/jni/" + name)) {
            if (in == null) {
                throw new IOException("the runtime interface client jar has no /jni/" + name);
            }
            Path temp = Files.createTempFile(target.getParent(), name, ".tmp");
            Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        }
        return target;
    }

    private static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("cannot locate the jar of " + c.getName(), e);
        }
    }
}
