package dev.oncepay.local;

import dev.oncepay.build.SingleJarLayout;
import io.quarkus.bootstrap.app.AugmentResult;
import io.quarkus.bootstrap.app.CuratedApplication;
import io.quarkus.bootstrap.app.QuarkusBootstrap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The deployable {@code function.zip} for tests of the local run. Maven's {@code test} phase runs
 * before {@code package}, so {@code target/function.zip} may be missing or older than the code
 * under test: it is used only when it is newer than everything in {@code target/classes} and the
 * pom; otherwise this builds a fresh one from {@code target/classes} with Quarkus' own production
 * build (the augmentation {@code mvn package} runs) and the same single-jar re-layout, into a
 * directory of the caller's choice.
 */
public final class LambdaPackage {
    private LambdaPackage() {
    }

    /** A package of the current code: {@code target/function.zip} if up to date, else a new build in {@code outputDir}. */
    public static Path current(Path projectRoot, Path outputDir) throws Exception {
        Path packaged = projectRoot.resolve("target/function.zip");
        if (isUpToDate(packaged, projectRoot)) {
            return packaged;
        }
        Path built = outputDir.resolve("function.zip");
        if (isUpToDate(built, projectRoot)) {
            return built;
        }
        return build(projectRoot, outputDir);
    }

    /** @return the built {@code function.zip} */
    static Path build(Path projectRoot, Path outputDir) throws Exception {
        Path classes = projectRoot.resolve("target/classes");
        if (!Files.isDirectory(classes)) {
            throw new IllegalStateException("no " + classes + ": compile first");
        }
        TaskRoot.deleteRecursively(outputDir);
        Files.createDirectories(outputDir);
        Properties buildProperties = new Properties();
        buildProperties.setProperty("quarkus.profile", "prod");
        try (CuratedApplication app = QuarkusBootstrap.builder()
                .setApplicationRoot(classes)
                .setProjectRoot(projectRoot)
                .setTargetDirectory(outputDir)
                .setMode(QuarkusBootstrap.Mode.PROD)
                .setLocalProjectDiscovery(true)
                .setIsolateDeployment(true)
                .setBaseName("oncepay-local-test")
                .setBuildSystemProperties(buildProperties)
                .build()
                .bootstrap()) {
            AugmentResult result = app.createAugmentor().createProductionApplication();
            Path zip = outputDir.resolve("function.zip");
            if (!Files.isRegularFile(zip)) {
                throw new IllegalStateException("the build made " + result.getJar().getPath() + " but no " + zip);
            }
            // What `mvn package` does next (the pom's exec-maven-plugin step): one jar in lib/.
            SingleJarLayout.relayout(zip);
            return zip;
        }
    }

    static boolean isUpToDate(Path zip, Path projectRoot) throws IOException {
        if (!Files.isRegularFile(zip)) {
            return false;
        }
        FileTime built = Files.getLastModifiedTime(zip);
        if (Files.getLastModifiedTime(projectRoot.resolve("pom.xml")).compareTo(built) > 0) {
            return false;
        }
        try (Stream<Path> inputs = Files.walk(projectRoot.resolve("target/classes"))) {
            return inputs.filter(Files::isRegularFile).noneMatch(p -> {
                try {
                    return Files.getLastModifiedTime(p).compareTo(built) > 0;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
