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
     * JDK 17 leaves a class of the function's class loader out of a dynamic archive unless it is
     * linked when the JVM writes it; the training sandbox links every class its init loaded.
     */
    @Test
    void theArchiveKeepsAClassThatInitOnlyLoaded() throws Exception {
        Path sources = dir.resolve("src");
        write(sources, "demo/OnlyLoaded.java", "package demo; public class OnlyLoaded { static int calls; }");
        write(sources, "demo/LoadingHandler.java", "package demo;"
                + " public class LoadingHandler implements com.amazonaws.services.lambda.runtime.RequestStreamHandler {"
                + " public LoadingHandler() throws ClassNotFoundException {"
                + " Class.forName(\"demo.OnlyLoaded\", false, LoadingHandler.class.getClassLoader()); }"
                + " public void handleRequest(java.io.InputStream in, java.io.OutputStream out,"
                + " com.amazonaws.services.lambda.runtime.Context context) { } }");
        Path taskRoot = dir.resolve("loading-task");
        List<String> javac = new ArrayList<>(List.of("-d", taskRoot.toString(), "--release", "17",
                "-cp", System.getProperty("java.class.path")));
        javac.add(sources.resolve("demo/OnlyLoaded.java").toString());
        javac.add(sources.resolve("demo/LoadingHandler.java").toString());
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, javac.toArray(String[]::new)));
        Path workDir = dir.resolve("work");
        SandboxCommand command = new SandboxCommand(taskRoot, workDir, "64m", "demo.LoadingHandler::handleRequest");

        Map<String, Path> trained = ClassDataArchive.prepare(command, taskRoot, workDir, Map.of("loading", Map.of()), 128);

        assertTrue(trained.containsKey("loading"), "an archive");
        String dumpLog = Files.readString(workDir.resolve("cds/loading-training.log"));
        assertFalse(dumpLog.contains("demo/OnlyLoaded"), dumpLog);
        assertTrue(Files.readString(workDir.resolve("cds/loading-training-classes.log"))
                .contains("demo.OnlyLoaded source: file:" + taskRoot), "the class was loaded from the task root");
    }

    @Test
    void theSandboxBootstrapJarIsRewrittenOnlyWhenItsContentChanges() throws Exception {
        Path taskRoot = taskRoot();
        Path workDir = dir.resolve("work");
        command(taskRoot, workDir);
        Path bootstrap = workDir.resolve("sandbox-bootstrap.jar");
        byte[] content = Files.readAllBytes(bootstrap);
        FileTime old = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(bootstrap, old);

        command(taskRoot, workDir);
        assertEquals(old, Files.getLastModifiedTime(bootstrap));

        Files.write(bootstrap, new byte[] {0});
        command(taskRoot, workDir);
        assertTrue(java.util.Arrays.equals(content, Files.readAllBytes(bootstrap)), "the same bytes as before, restored");
    }

    private Path taskRoot() throws Exception {
        Path taskRoot = dir.resolve("task");
        String handler = ScriptedHandler.class.getName().replace('.', '/') + ".class";
        Path target = taskRoot.resolve(handler);
        Files.createDirectories(target.getParent());
        Files.copy(LocalRun.projectRoot().resolve("target/test-classes").resolve(handler), target);
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

    private static List<Path> archives(Path workDir) throws Exception {
        try (Stream<Path> files = Files.list(workDir.resolve("cds"))) {
            return files.filter(p -> !p.getFileName().toString().endsWith(".log")).toList();
        }
    }
}
