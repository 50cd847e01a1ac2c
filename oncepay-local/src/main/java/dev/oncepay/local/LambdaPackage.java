package dev.oncepay.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;

/**
 * The deployable {@code function.zip} that the functions module's {@code package} phase builds.
 * In the reactor the local run's and the drill's tests run after it ({@code ./mvnw verify}), so
 * they always get the package of the code under test; one older than that code is refused rather
 * than run.
 */
public final class LambdaPackage {
    /** Where the functions module leaves it, from the project root. */
    public static final String PATH = "oncepay-functions/target/function.zip";

    private LambdaPackage() {
    }

    /** The built package of the current code, or an exception that says how to build it. */
    public static Path built() throws IOException {
        Path root = LocalRun.projectRoot();
        Path zip = root.resolve(PATH);
        if (!Files.isRegularFile(zip)) {
            throw new IllegalStateException("no " + zip + ": build it with ./mvnw package -DskipTests -pl oncepay-functions -am");
        }
        if (!isUpToDate(zip, root.resolve("oncepay-functions"))) {
            throw new IllegalStateException(zip + " is older than the functions' classes: build it again with"
                    + " ./mvnw package -DskipTests -pl oncepay-functions -am");
        }
        return zip;
    }

    static boolean isUpToDate(Path zip, Path module) throws IOException {
        FileTime built = Files.getLastModifiedTime(zip);
        if (Files.getLastModifiedTime(module.resolve("pom.xml")).compareTo(built) > 0) {
            return false;
        }
        try (Stream<Path> inputs = Files.walk(module.resolve("target/classes"))) {
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
