package dev.oncepay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code native-build.sh}'s choices, with stand-in tools on a bare PATH: which build it picks
 * (local native-image, Docker, Podman, JVM), what it prints it will run, what it says when nothing
 * can build natively (also as the native Maven profile's first step, {@code --check}), and that it
 * checks the zip it built. The Maven Wrapper is a stub here; the real builds are not run.
 */
class NativeBuildScriptTest {
    private static final Path SCRIPT = Path.of("../native-build.sh").toAbsolutePath().normalize();
    /** The builder image the script names: the line {@code MANDREL_IMAGE=...}. */
    private static final String MANDREL_IMAGE = mandrelImage();

    @TempDir
    Path dir;
    Path bin;
    Path project;

    @BeforeEach
    void bareMachine() throws IOException {
        bin = Files.createDirectories(dir.resolve("bin"));
        // Only what the script uses besides the tools under test.
        for (String tool : List.of("uname", "dirname", "cat", "rm", "grep", "sed", "head", "tail", "du", "cut", "cp", "mkdir",
                "unzip")) {
            for (String location : List.of("/usr/bin/", "/bin/")) {
                Path real = Path.of(location + tool);
                if (Files.isExecutable(real)) {
                    Files.createSymbolicLink(bin.resolve(tool), real);
                    break;
                }
            }
        }
        // The script works in its own directory: run a copy in a scratch project.
        project = Files.createDirectories(dir.resolve("project"));
        Files.copy(SCRIPT, project.resolve("native-build.sh"), StandardCopyOption.COPY_ATTRIBUTES);
        tool("java", "exit 0");
        maven("echo \"mvnw $*\" >> mvn.log; mkdir -p oncepay-functions/target; cp \"$ZIP\" oncepay-functions/target/function.zip");
    }

    @Test
    void helpExplainsTheChoices() throws Exception {
        Run run = run(Map.of(), "--help");
        assertEquals(0, run.exit);
        assertTrue(run.out.startsWith("Usage: ./native-build.sh [--jvm]"), run.out);
        assertTrue(run.out.contains("docker") || run.out.contains("Docker"), run.out);
    }

    @Test
    void withNothingToBuildNativelyItStopsAndNamesWhatIsMissing() throws Exception {
        Run run = run(Map.of());
        assertEquals(3, run.exit, run.err);
        assertTrue(run.err.contains("native-image"), run.err);
        assertTrue(run.err.contains("GRAALVM_HOME"), run.err);
        assertTrue(run.err.contains("Docker or Podman"), run.err);
        assertTrue(run.err.contains("./native-build.sh --jvm"), run.err);
        assertFalse(Files.exists(project.resolve("mvn.log")), "Maven must not run");
    }

    @Test
    void anInstalledButStoppedDockerIsNamed() throws Exception {
        tool("docker", "exit 1");
        Run run = run(Map.of());
        assertEquals(3, run.exit, run.err);
        assertTrue(run.err.contains("docker is installed but not reachable"), run.err);
    }

    @Test
    void withoutTheMavenWrapperItSaysSo() throws Exception {
        Files.delete(project.resolve("mvnw"));
        Run run = run(Map.of(), "--dry-run");
        assertEquals(2, run.exit);
        assertTrue(run.err.contains("the Maven Wrapper ./mvnw is missing"), run.err);
    }

    @Test
    void aLocalNativeImageOnThePathBuildsLocally() throws Exception {
        tool("native-image", "exit 0");
        tool("docker", "exit 0");
        Run run = run(Map.of(), "--dry-run");
        assertEquals(0, run.exit, run.err);
        assertEquals("./mvnw -B package -pl oncepay-functions -am -DskipTests -Dnative", run.out.strip());
    }

    @Test
    void graalvmHomeBuildsLocally() throws Exception {
        Path graal = Files.createDirectories(dir.resolve("graalvm/bin"));
        executable(graal.resolve("native-image"), "exit 0");
        Run run = run(Map.of("GRAALVM_HOME", graal.getParent().toString()), "--dry-run");
        assertEquals(0, run.exit, run.err);
        assertEquals("./mvnw -B package -pl oncepay-functions -am -DskipTests -Dnative", run.out.strip());
        assertTrue(run.err.contains("native-image: " + graal.resolve("native-image") + " ("), run.err);
    }

    @Test
    void otherwiseARunningDockerBuildsInAContainer() throws Exception {
        tool("docker", "[ \"$1\" = info ]");
        Run run = run(Map.of(), "--dry-run");
        assertEquals(0, run.exit, run.err);
        assertEquals("./mvnw -B package -pl oncepay-functions -am -DskipTests -Dnative -Dquarkus.native.container-build=true"
                + " -Dquarkus.native.container-runtime=docker", run.out.strip());
    }

    @Test
    void orARunningPodmanWhenDockerIsStopped() throws Exception {
        tool("docker", "exit 1");
        tool("podman", "[ \"$1\" = info ]");
        Run run = run(Map.of(), "--dry-run");
        assertEquals(0, run.exit, run.err);
        assertTrue(run.out.strip().endsWith("-Dquarkus.native.container-runtime=podman"), run.out);
    }

    @Test
    void jvmNeedsNoNativeToolchainAndPassesMavenArguments() throws Exception {
        Run run = run(Map.of(), "--jvm", "--tests", "--dry-run", "--", "-Dquarkus.log.level=WARN");
        assertEquals(0, run.exit, run.err);
        assertEquals("./mvnw -B package -pl oncepay-functions -am -Dquarkus.log.level=WARN", run.out.strip());
    }

    @Test
    void unknownArgumentsAreRefused() throws Exception {
        Run run = run(Map.of(), "--natve");
        assertEquals(2, run.exit);
        assertTrue(run.err.contains("unknown argument: --natve"), run.err);
    }

    @Test
    void aJvmBuildProducesAJvmZip() throws Exception {
        Run run = run(Map.of("ZIP", zip(false).toString()), "--jvm");
        assertEquals(0, run.exit, run.err);
        assertTrue(run.err.contains("built oncepay-functions/target/function.zip"), run.err);
        assertTrue(Files.isRegularFile(project.resolve("oncepay-functions/target/function.zip")));
    }

    @Test
    void aNativeBuildWithoutBootstrapIsRejected() throws Exception {
        tool("native-image", "exit 0");
        Run run = run(Map.of("ZIP", zip(false).toString()));
        assertEquals(2, run.exit, run.err);
        assertTrue(run.err.contains("no bootstrap"), run.err);

        run = run(Map.of("ZIP", zip(true).toString()));
        assertEquals(0, run.exit, run.err);
        run = run(Map.of("ZIP", zip(true).toString()), "--jvm");
        assertEquals(2, run.exit, run.err);
    }

    @Test
    void aFailedBuildLeavesNoOldZipBehind() throws Exception {
        Files.createDirectories(project.resolve("oncepay-functions/target"));
        Files.writeString(project.resolve("oncepay-functions/target/function.zip"), "from an earlier build");
        maven("exit 1");
        Run run = run(Map.of(), "--jvm");
        assertEquals(1, run.exit, run.err);
        assertFalse(Files.exists(project.resolve("oncepay-functions/target/function.zip")));
    }

    @Test
    void theCheckOfTheNativeProfileFailsAtOnceAndSaysWhatTheBuildWouldRun() throws Exception {
        Run run = run(Map.of(), "--check");
        assertEquals(3, run.exit, run.err);
        assertTrue(run.err.contains("cannot build the native function.zip here"), run.err);
        assertTrue(run.err.contains("./mvnw package -Dnative"), run.err);
        assertTrue(run.err.contains(MANDREL_IMAGE), run.err);
        assertTrue(run.err.contains("bootstrap in\noncepay-functions/target/function.zip"), run.err);
        assertFalse(Files.exists(project.resolve("mvn.log")), "Maven must not run");
    }

    @Test
    void theCheckPassesWithARunningContainerEngineAndNamesTheBuilderImage() throws Exception {
        tool("podman", "[ \"$1\" = info ]");
        Run run = run(Map.of(), "--check");
        assertEquals(0, run.exit, run.err);
        assertTrue(run.err.contains("native-image: in a container of " + MANDREL_IMAGE + ", run by podman"), run.err);
    }

    @Test
    void aDryRunPrintsTheNativeImageSettingsBesideTheCommand() throws Exception {
        tool("docker", "[ \"$1\" = info ]");
        Run run = run(Map.of(), "--dry-run", "--", "-Dquarkus.native.native-image-xmx=6g");
        assertEquals(0, run.exit, run.err);
        assertTrue(run.out.strip().endsWith("-Dquarkus.native.native-image-xmx=6g"), run.out);
        assertTrue(run.err.contains("native settings: quarkus.native.enabled=true quarkus.package.jar.enabled=false"
                + " quarkus.native.native-image-xmx=6g"), run.err);
    }

    @Test
    void aLocalToolchainIsNamedWithItsVersion() throws Exception {
        tool("native-image", "echo 'native-image 25.0.1 2025-10-21'");
        Run run = run(Map.of(), "--dry-run");
        assertEquals(0, run.exit, run.err);
        assertTrue(run.err.contains("native-image: " + bin.resolve("native-image") + " (native-image 25.0.1 2025-10-21), on this machine"),
                run.err);
    }

    @Test
    void itSaysWhatItRunsBeforeRunningIt() throws Exception {
        tool("native-image", "exit 0");
        maven("echo MAVEN-RAN >&2; mkdir -p oncepay-functions/target; cp \"$ZIP\" oncepay-functions/target/function.zip");
        Run run = run(Map.of("ZIP", zip(true).toString()));
        assertEquals(0, run.exit, run.err);
        int plan = run.err.indexOf("native function.zip: ./mvnw -B package -pl oncepay-functions -am -DskipTests -Dnative");
        assertTrue(plan >= 0 && plan < run.err.indexOf("MAVEN-RAN"), run.err);
    }

    /** The script names Quarkus' default builder image; the Quarkus on this class path must agree. */
    @Test
    void theBuilderImageIsTheOneOfTheQuarkusInUse() throws Exception {
        String config = "io/quarkus/deployment/pkg/NativeConfig$BuilderImageConfig.class";
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(config)) {
            assertTrue(in != null, config);
            assertTrue(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).contains(MANDREL_IMAGE),
                    "Quarkus' default Mandrel builder image is no longer " + MANDREL_IMAGE);
        }
    }

    private Path zip(boolean nativeBuild) throws IOException {
        Path zip = dir.resolve(nativeBuild ? "native.zip" : "jvm.zip");
        try (OutputStream out = Files.newOutputStream(zip); ZipOutputStream z = new ZipOutputStream(out)) {
            z.putNextEntry(new ZipEntry(nativeBuild ? "bootstrap" : "lib/app.jar"));
            z.write(1);
            z.closeEntry();
        }
        return zip;
    }

    private void tool(String name, String body) throws IOException {
        executable(bin.resolve(name), body);
    }

    /** The project's Maven Wrapper, which the script runs (not a Maven on the PATH). */
    private void maven(String body) throws IOException {
        executable(project.resolve("mvnw"), body);
    }

    private static String mandrelImage() {
        try {
            return Files.readAllLines(SCRIPT).stream().filter(l -> l.startsWith("MANDREL_IMAGE="))
                    .map(l -> l.substring("MANDREL_IMAGE=".length())).findFirst().orElseThrow();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void executable(Path file, String body) throws IOException {
        Files.writeString(file, "#!/bin/bash\n" + body + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private Run run(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("/bin/bash", project.resolve("native-build.sh").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().clear();
        builder.environment().put("PATH", bin.toString());
        builder.environment().put("HOME", dir.toString());
        builder.environment().putAll(env);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("native-build.sh did not finish");
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private record Run(int exit, String out, String err) {
    }
}
