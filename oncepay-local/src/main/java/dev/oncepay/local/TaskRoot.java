package dev.oncepay.local;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** The deployment package unpacked the way Lambda unpacks it into {@code /var/task}. */
final class TaskRoot {
    private TaskRoot() {
    }

    /**
     * @param app {@code function.zip}, or a directory that already is a task root
     * @return the task root directory
     */
    static Path prepare(Path app, Path workDir) throws IOException {
        if (Files.isDirectory(app)) {
            check(app, app);
            return app.toAbsolutePath();
        }
        if (!Files.isRegularFile(app)) {
            throw new IOException(app + " does not exist: build it with `mvn package -DskipTests` (run-local.sh does)");
        }
        Path task = workDir.resolve("task").toAbsolutePath();
        deleteRecursively(task);
        Files.createDirectories(task);
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(app))) {
            for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
                Path target = task.resolve(entry.getName()).normalize();
                if (!target.startsWith(task)) {
                    throw new IOException("unsafe entry in " + app + ": " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    copy(zip, target);
                    if (entry.getTime() != -1) {
                        // As unzip does; the sandboxes' class path holds these jars, and an AppCDS archive records their times.
                        Files.setLastModifiedTime(target, FileTime.fromMillis(entry.getTime()));
                    }
                }
            }
        }
        check(task, app);
        return task;
    }

    private static void copy(InputStream in, Path target) throws IOException {
        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void check(Path task, Path app) throws IOException {
        if (!Files.isDirectory(task.resolve("lib")) || !Files.exists(task.resolve("io/quarkus/runner"))) {
            throw new IOException(app + " is not a Quarkus JVM Lambda package (no lib/ and io/quarkus/runner/ inside)");
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
