package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * AppCDS archives of the local run, with real JVMs: a training sandbox under the runtime
 * interface client (the scripted test handler as the function, a JVM that starts in a second)
 * writes an archive this JVM accepts, the next run reuses it, a damaged one is replaced, and the
 * sandboxes' class path stays byte- and timestamp-stable (a JVM refuses an archive whose class
 * path jars changed).
 */
@Timeout(180)
@Tag("slow")
class ClassDataArchiveTest {
    private static final String FUNCTION = "scripted";

    @TempDir
    Path dir;

    @Test
    void trainsAnArchiveOnceReusesItAndReplacesOneTheJvmRefuses() throws Exception {
        Path taskRoot = taskRoot();
        Path workDir = dir.resolve("work");
        SandboxCommand command = command(taskRoot, workDir);

        Map<String, Path> trained = ClassDataArchive.prepare(command, taskRoot, workDir, Map.of(FUNCTION, Map.of()), 128);

        Path archive = trained.get(FUNCTION);
        String key = ClassDataArchive.key(taskRoot, command.classpath());
        assertEquals(workDir.resolve("cds/" + FUNCTION + "-" + key + ".jsa"), archive);
        assertTrue(Files.size(archive) > 0);
        assertEquals(List.of(archive), archives(workDir), "no temporary file left");
        List<String> flags = command.withArchives(trained).builder(FUNCTION, 1, 128, Map.of()).command();
        assertTrue(flags.contains("-XX:SharedArchiveFile=" + archive), flags.toString());
        assertTrue(flags.indexOf("-XX:SharedArchiveFile=" + archive) < flags.indexOf("-cp"), "a JVM flag");
        assertFalse(command.builder(FUNCTION, 1, 128, Map.of()).command().stream().anyMatch(f -> f.contains("SharedArchive")));

        FileTime written = Files.getLastModifiedTime(archive);
        SandboxCommand again = command(taskRoot, workDir);
        assertEquals(Map.of(FUNCTION, archive), ClassDataArchive.prepare(again, taskRoot, workDir, Map.of(FUNCTION, Map.of()), 128));
        assertEquals(written, Files.getLastModifiedTime(archive), "the cached archive, not a new one");

        archive.toFile().setWritable(true);
        Files.write(archive, new byte[] {1, 2, 3});
        assertEquals(Map.of(FUNCTION, archive), ClassDataArchive.prepare(again, taskRoot, workDir, Map.of(FUNCTION, Map.of()), 128));
        assertTrue(Files.size(archive) > 3, "a damaged archive is trained again");

        Files.writeString(taskRoot.resolve("changed.txt"), "another package");
        assertNotEquals(key, ClassDataArchive.key(taskRoot, command.classpath()), "another package, another archive");
    }

    /**
     * What the function's init loaded is in the archive, for the system class loader: a class it
     * only loaded (not linked), a lambda it spun, and a class of a pre-Java 6 jar in {@code lib/}.
     * JDK 17 keeps lambdas only for its own class loaders, and pre-Java 6 classes (joda-time's,
     * which Quarkus' Lambda mapper loads) only in a static archive.
     */
    @Test
    void theArchiveKeepsWhatInitLoadedLambdasAndOldClassesIncluded() throws Exception {
        Path sources = dir.resolve("src");
        write(sources, "demo/OnlyLoaded.java", "package demo; public class OnlyLoaded { static int calls; }");
        write(sources, "demo/LoadingHandler.java", "package demo;"
                + " public class LoadingHandler implements com.amazonaws.services.lambda.runtime.RequestStreamHandler {"
                + " public LoadingHandler() throws ClassNotFoundException {"
                + " ClassLoader loader = LoadingHandler.class.getClassLoader();"
                + " Class.forName(\"demo.OnlyLoaded\", false, loader);"
                + " Class.forName(\"org.joda.time.Instant\", true, loader);"
                + " java.util.function.Supplier<String> spun = () -> \"spun\"; spun.get(); }"
                + " public void handleRequest(java.io.InputStream in, java.io.OutputStream out,"
                + " com.amazonaws.services.lambda.runtime.Context context) { } }");
        Path taskRoot = dir.resolve("loading-task");
        List<String> javac = new ArrayList<>(List.of("-d", taskRoot.toString(), "--release", "17",
                "-cp", System.getProperty("java.class.path")));
        javac.add(sources.resolve("demo/OnlyLoaded.java").toString());
        javac.add(sources.resolve("demo/LoadingHandler.java").toString());
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, javac.toArray(String[]::new)));
        Path joda = Path.of(org.joda.time.Instant.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Files.createDirectories(taskRoot.resolve("lib"));
        Files.copy(joda, taskRoot.resolve("lib").resolve(joda.getFileName()));
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(joda.toFile())) {
            byte[] header = jar.getInputStream(jar.getEntry("org/joda/time/Instant.class")).readNBytes(8);
            assertEquals(49, header[7], "a Java 5 class file");
        }
        Path workDir = dir.resolve("work");
        SandboxCommand command = new SandboxCommand(taskRoot, workDir, "64m", "demo.LoadingHandler::handleRequest");

        Map<String, Path> trained = ClassDataArchive.prepare(command, taskRoot, workDir, Map.of("loading", Map.of()), 128);

        assertTrue(trained.containsKey("loading"), "an archive");
        String archived = sharedDictionary(command, trained.get("loading"));
        assertTrue(archived.contains(" demo.OnlyLoaded app_loader"), archived);
        assertTrue(archived.contains(" org.joda.time.Instant app_loader"), archived);
        assertTrue(archived.lines().anyMatch(l -> l.contains("demo.LoadingHandler$$Lambda$") && l.endsWith(" app_loader")),
                archived);
    }

    @Test
    void theJarsTheLocalRunWritesForTheClassPathAreRewrittenOnlyWhenTheirContentChanges() throws Exception {
        Path taskRoot = taskRoot();
        Path workDir = dir.resolve("work");
        String classpath = command(taskRoot, workDir).classpath();
        for (String written : List.of("sandbox-bootstrap.jar", "task-root.jar")) {
            Path jar = workDir.resolve(written);
            assertTrue(classpath.contains(jar.toAbsolutePath().toString()), classpath);
            byte[] content = Files.readAllBytes(jar);
            FileTime old = FileTime.fromMillis(1_000_000_000_000L);
            Files.setLastModifiedTime(jar, old);

            command(taskRoot, workDir);
            assertEquals(old, Files.getLastModifiedTime(jar), written);

            Files.write(jar, new byte[] {0});
            command(taskRoot, workDir);
            assertTrue(java.util.Arrays.equals(content, Files.readAllBytes(jar)), written + ": the same bytes as before, restored");
        }
        Files.writeString(taskRoot.resolve("added.txt"), "more");
        command(taskRoot, workDir);
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(workDir.resolve("task-root.jar").toFile())) {
            assertTrue(jar.getEntry("added.txt") != null, "the task root's files, as they are now");
        }
    }

    /** Unpacked twice, the same package's jars keep their times, so the archive stays valid from one local run to the next. */
    @Test
    void theUnpackedPackagesFilesKeepTheirEntriesTimes() throws Exception {
        Path app = dir.resolve("function.zip");
        FileTime entryTime = FileTime.fromMillis(1_500_000_000_000L);
        try (java.util.zip.ZipOutputStream zip = new java.util.zip.ZipOutputStream(Files.newOutputStream(app))) {
            for (String name : List.of("io/quarkus/runner/Marker.class", "lib/function.jar")) {
                java.util.zip.ZipEntry entry = new java.util.zip.ZipEntry(name);
                entry.setLastModifiedTime(entryTime);
                zip.putNextEntry(entry);
                zip.write(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        Path workDir = dir.resolve("work");

        Path task = TaskRoot.prepare(app, workDir);
        assertEquals(entryTime.toMillis() / 2000, Files.getLastModifiedTime(task.resolve("lib/function.jar")).toMillis() / 2000);
        FileTime first = Files.getLastModifiedTime(task.resolve("lib/function.jar"));
        assertEquals(first, Files.getLastModifiedTime(TaskRoot.prepare(app, workDir).resolve("lib/function.jar")));
    }

    private Path taskRoot() throws Exception {
        Path taskRoot = dir.resolve("task");
        String handler = ScriptedHandler.class.getName().replace('.', '/') + ".class";
        Path target = taskRoot.resolve(handler);
        Files.createDirectories(target.getParent());
        Files.copy(Path.of("target/test-classes").resolve(handler), target);
        return taskRoot;
    }

    private static void write(Path root, String file, String source) throws Exception {
        Path path = root.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, source);
    }

    private static SandboxCommand command(Path taskRoot, Path workDir) throws Exception {
        return new SandboxCommand(taskRoot, workDir, "64m", ScriptedHandler.class.getName() + "::handleRequest");
    }

    /** The classes {@code archive} holds, one per line with its class loader, as the JVM prints them. */
    private static String sharedDictionary(SandboxCommand command, Path archive) throws Exception {
        List<String> print = new ArrayList<>(command.archiveCheck(archive).command());
        print.remove("-version");
        print.addAll(print.indexOf("-cp"), List.of("-XX:+PrintSharedArchiveAndExit", "-XX:+PrintSharedDictionary"));
        Process process = new ProcessBuilder(print).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        return output;
    }

    private static List<Path> archives(Path workDir) throws Exception {
        try (Stream<Path> files = Files.list(workDir.resolve("cds"))) {
            return files.filter(p -> !p.getFileName().toString().endsWith(".log")
                    && !p.getFileName().toString().endsWith(".classlist")).toList();
        }
    }
}
