package dev.oncepay.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The function.zip re-layout on small synthetic packages, and a class loader over its result. */
class SingleJarLayoutTest {
    @TempDir
    Path dir;

    @Test
    void concatenatesServicesFilesInTheClientsJarOrderEachProviderOnce() throws IOException {
        Path zip = functionZip(Map.of(), Map.of(
                "lib/b.jar", jar(Map.of("META-INF/services/demo.Api", "# licence header\ndemo.B1\ndemo.Shared\n")),
                "lib/a.jar", jar(Map.of("META-INF/services/demo.Api", "demo.A1\r\ndemo.Shared # trailing comment\n\n",
                        "META-INF/services/demo.Other", "demo.O1")),
                "lib/c.jar", jar(Map.of("META-INF/services/demo.Api", "demo.C1\ndemo.A1\n"))));

        SingleJarLayout.Result result = SingleJarLayout.relayout(zip);

        Map<String, byte[]> merged = mergedJar(zip);
        assertEquals("demo.A1\ndemo.Shared\ndemo.B1\ndemo.C1\n", text(merged, "META-INF/services/demo.Api"));
        assertEquals("demo.O1\n", text(merged, "META-INF/services/demo.Other"));
        assertEquals(2, result.servicesFiles());
        assertEquals(List.of(), result.duplicates(), "services files are merged, not resolved as duplicates");
    }

    @Test
    void aDuplicateEntryComesFromTheFirstJarInTheClientsOrderAndIsListed() throws IOException {
        // Stored in the zip out of order: the client sorts lib/*.jar by name ("B" < "a": String order).
        Map<String, byte[]> jars = new LinkedHashMap<>();
        jars.put("lib/z-last.jar", jar(Map.of("demo/Dup.class", "from z", "demo/Same.txt", "same")));
        jars.put("lib/a-first.jar", jar(Map.of("demo/Dup.class", "from a", "demo/Same.txt", "same")));
        jars.put("lib/B-upper.jar", jar(Map.of("demo/Dup.class", "from B", "demo/OnlyB.txt", "b")));
        jars.put("lib/sub/nested.jar", jar(Map.of("demo/Dup.class", "from nested")));
        jars.put("lib/.jar", jar(Map.of("demo/Dup.class", "unnamed")));
        Path zip = functionZip(Map.of("demo/Dup.class", "from the task root", "io/quarkus/runner/App.class", "app"),
                jars);

        SingleJarLayout.Result result = SingleJarLayout.relayout(zip);

        assertEquals(List.of("B-upper.jar", "a-first.jar", "z-last.jar"), result.mergedJars(),
                "lib/*.jar directly in lib/, named something.jar, in String order");
        Map<String, byte[]> merged = mergedJar(zip);
        assertEquals("from B", text(merged, "demo/Dup.class"));
        assertEquals("same", text(merged, "demo/Same.txt"));
        assertEquals("b", text(merged, "demo/OnlyB.txt"));
        assertEquals(List.of(
                new SingleJarLayout.Duplicate("demo/Dup.class", "B-upper.jar", List.of("a-first.jar", "z-last.jar"), false),
                new SingleJarLayout.Duplicate("demo/Same.txt", "a-first.jar", List.of("z-last.jar"), true)),
                result.duplicates());
        Map<String, byte[]> root = entries(Files.readAllBytes(zip));
        assertEquals("from the task root", text(root, "demo/Dup.class"), "the task root's entries stay at the root");
        assertEquals("app", text(root, "io/quarkus/runner/App.class"));
        assertEquals(List.of("lib/.jar", "lib/" + SingleJarLayout.MERGED_JAR, "lib/sub/nested.jar"),
                root.keySet().stream().filter(n -> n.startsWith("lib/") && !n.endsWith("/")).sorted().toList(),
                "what the client never loaded stays as it was");

        Path report = dir.resolve("duplicates.txt");
        SingleJarLayout.writeReport(result, report);
        List<String> lines = Files.readAllLines(report);
        assertTrue(lines.contains("demo/Dup.class\tB-upper.jar\tdiffers\ta-first.jar z-last.jar"), lines.toString());
    }

    @Test
    void keepsMultiReleaseEntriesWithTheirBaseAndSaysMultiRelease() throws IOException {
        Map<String, String> mr = new LinkedHashMap<>();
        mr.put(JarFile.MANIFEST_NAME, "Manifest-Version: 1.0\nMulti-Release: true\n");
        mr.put("demo/Fast.class", "base");
        mr.put("META-INF/versions/11/demo/Fast.class", "v11");
        mr.put("META-INF/versions/9/module-info.class", "module");
        mr.put("demo/Shadowed.class", "mr base");
        mr.put("META-INF/versions/11/demo/Shadowed.class", "mr v11");
        Path zip = functionZip(Map.of(), Map.of(
                "lib/a-plain.jar", jar(Map.of("demo/Shadowed.class", "plain", "META-INF/versions/11/demo/Plain.class",
                        "ignored: not a Multi-Release jar")),
                "lib/b-mr.jar", jar(mr)));

        SingleJarLayout.Result result = SingleJarLayout.relayout(zip);

        assertTrue(result.multiRelease());
        Map<String, byte[]> merged = mergedJar(zip);
        Manifest manifest = new Manifest(new ByteArrayInputStream(merged.get(JarFile.MANIFEST_NAME)));
        assertEquals("true", manifest.getMainAttributes().getValue(Attributes.Name.MULTI_RELEASE));
        assertEquals("v11", text(merged, "META-INF/versions/11/demo/Fast.class"));
        assertEquals("base", text(merged, "demo/Fast.class"));
        assertEquals("plain", text(merged, "demo/Shadowed.class"));
        assertNull(merged.get("META-INF/versions/11/demo/Shadowed.class"),
                "the base class came from a-plain.jar, which had no version of it");
        assertNull(merged.get("META-INF/versions/11/demo/Plain.class"));
        assertNull(merged.get("META-INF/versions/9/module-info.class"));
    }

    @Test
    void dropsSignaturesAndJarIndexesAndKeepsEachJarsLicences() throws IOException {
        Map<String, String> signed = new LinkedHashMap<>();
        signed.put(JarFile.MANIFEST_NAME, "Manifest-Version: 1.0\n\nName: demo/S.class\nSHA-256-Digest: abc=\n");
        signed.put("META-INF/SIGNER.SF", "sf");
        signed.put("META-INF/SIGNER.RSA", "rsa");
        signed.put("META-INF/OTHER.DSA", "dsa");
        signed.put("META-INF/THIRD.EC", "ec");
        signed.put("META-INF/INDEX.LIST", "JarIndex-Version: 1.0\n\nsigned.jar\ndemo\n");
        signed.put("META-INF/LICENSE", "Apache");
        signed.put("META-INF/license/LICENSE.zlib.txt", "zlib");
        signed.put("demo/S.class", "s");
        Path zip = functionZip(Map.of(), Map.of(
                "lib/signed.jar", jar(signed),
                "lib/other.jar", jar(Map.of("META-INF/LICENSE", "MIT", "META-INF/NOTICE.txt", "notice", "LICENSE",
                        "root licence"))));

        SingleJarLayout.Result result = SingleJarLayout.relayout(zip);

        Map<String, byte[]> merged = mergedJar(zip);
        assertEquals(4, result.signatureFiles());
        assertTrue(merged.keySet().stream().noneMatch(n -> n.matches("META-INF/[^/]+\\.(SF|RSA|DSA|EC)")), merged.keySet().toString());
        assertNull(merged.get("META-INF/INDEX.LIST"), "a jar index naming one jar would hide the others' classes");
        assertFalse(text(merged, JarFile.MANIFEST_NAME).contains("Digest"), "no per-entry digests of a signed jar");
        assertEquals("s", text(merged, "demo/S.class"));
        assertEquals("Apache", text(merged, "META-INF/licenses/signed.jar/META-INF/LICENSE"));
        assertEquals("zlib", text(merged, "META-INF/licenses/signed.jar/META-INF/license/LICENSE.zlib.txt"));
        assertEquals("MIT", text(merged, "META-INF/licenses/other.jar/META-INF/LICENSE"));
        assertEquals("notice", text(merged, "META-INF/licenses/other.jar/META-INF/NOTICE.txt"));
        assertEquals("root licence", text(merged, "META-INF/licenses/other.jar/LICENSE"));
        assertEquals(5, result.licenceFiles());
        assertNull(merged.get("META-INF/LICENSE"), "no jar's licence stands for the others'");
    }

    @Test
    void theSameInputGivesTheSameBytesAndANativeZipIsLeftAlone() throws IOException {
        Map<String, byte[]> jars = Map.of("lib/a.jar", jar(Map.of("demo/A.class", "a")),
                "lib/b.jar", jar(Map.of("demo/B.class", "b")));
        Path first = functionZip(Map.of("io/quarkus/runner/App.class", "app"), jars);
        byte[] input = Files.readAllBytes(first);
        Path second = dir.resolve("second.zip");
        Files.write(second, input);

        SingleJarLayout.relayout(first);
        SingleJarLayout.relayout(second);
        assertArrayEquals(Files.readAllBytes(first), Files.readAllBytes(second));
        byte[] once = Files.readAllBytes(first);
        assertFalse(SingleJarLayout.relayout(first).changed(), "re-laid already");
        assertArrayEquals(once, Files.readAllBytes(first));
        try (ZipFile z = new ZipFile(first.toFile())) {
            assertTrue(Collections.list(z.entries()).stream().allMatch(e -> e.getTimeLocal().equals(SingleJarLayout.ENTRY_TIME)));
        }

        Path nativeZip = dir.resolve("native.zip");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(nativeZip))) {
            z.putNextEntry(new ZipEntry("bootstrap"));
            z.write("ELF".getBytes(StandardCharsets.UTF_8));
        }
        byte[] before = Files.readAllBytes(nativeZip);
        assertFalse(SingleJarLayout.relayout(nativeZip).changed());
        assertArrayEquals(before, Files.readAllBytes(nativeZip));
    }

    /**
     * Compiled classes in three jars and the task root; after the re-layout a class loader built
     * like the runtime client's (task root, then lib/*.jar in name order) loads a class from the
     * merged jar and finds every provider of a service that two jars declared.
     */
    @Test
    void aClassLoaderOverTheTaskRootLoadsClassesAndServicesFromTheMergedJar() throws Exception {
        Path sources = dir.resolve("src");
        write(sources, "demo/api/Greeter.java", "package demo.api; public interface Greeter { String greet(); }");
        write(sources, "demo/en/English.java",
                "package demo.en; public class English implements demo.api.Greeter { public String greet() { return \"hello\"; } }");
        write(sources, "demo/fr/French.java",
                "package demo.fr; public class French implements demo.api.Greeter { public String greet() { return \"bonjour\"; } }");
        write(sources, "demo/app/Main.java",
                "package demo.app; public class Main { public static String all() { StringBuilder b = new StringBuilder();"
                        + " for (demo.api.Greeter g : java.util.ServiceLoader.load(demo.api.Greeter.class,"
                        + " Main.class.getClassLoader())) b.append(g.greet()).append(' '); return b.toString().trim(); } }");
        Path classes = dir.resolve("classes");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "--release", "17"));
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> args.add(p.toString()));
        }
        assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)));

        Path zip = functionZip(Map.of("demo/app/Main.class", read(classes, "demo/app/Main.class")), Map.of(
                "lib/api.jar", jar(Map.of("demo/api/Greeter.class", read(classes, "demo/api/Greeter.class"))),
                "lib/en.jar", jar(Map.of("demo/en/English.class", read(classes, "demo/en/English.class"),
                        "META-INF/services/demo.api.Greeter", "demo.en.English\n")),
                "lib/fr.jar", jar(Map.of("demo/fr/French.class", read(classes, "demo/fr/French.class"),
                        "META-INF/services/demo.api.Greeter", "demo.fr.French\n"))));
        SingleJarLayout.relayout(zip);
        Path taskRoot = unpack(zip, dir.resolve("task"));

        List<URL> urls = new ArrayList<>();
        urls.add(taskRoot.toUri().toURL());
        try (Stream<Path> lib = Files.list(taskRoot.resolve("lib"))) {
            List<Path> jars = lib.sorted().toList();
            assertEquals(List.of(taskRoot.resolve("lib/" + SingleJarLayout.MERGED_JAR)), jars);
            for (Path jar : jars) {
                urls.add(jar.toUri().toURL());
            }
        }
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Class<?> main = loader.loadClass("demo.app.Main");
            assertEquals(taskRoot.toUri().toURL(), main.getProtectionDomain().getCodeSource().getLocation());
            assertEquals("hello bonjour", main.getMethod("all").invoke(null));
            Class<?> greeter = loader.loadClass("demo.api.Greeter");
            assertEquals(2, ServiceLoader.load(greeter, loader).stream().count());
            assertNotNull(loader.getResource("META-INF/services/demo.api.Greeter"));
        }
    }

    /** A sandbox inflates nothing to load a class; function.zip still carries the jar deflated. */
    @Test
    void theMergedJarsEntriesAreStoredAndTheJarIsDeflatedInTheZip() throws IOException {
        Path zip = functionZip(Map.of(), Map.of(
                "lib/a.jar", jar(Map.of("demo/A.class", "a".repeat(4096), "META-INF/services/demo.Api", "demo.A\n")),
                "lib/b.jar", jar(Map.of("demo/", "", "demo/B.class", "b".repeat(4096)))));

        SingleJarLayout.relayout(zip);

        Path taskRoot = unpack(zip, dir.resolve("task"));
        try (ZipFile merged = new ZipFile(taskRoot.resolve("lib/" + SingleJarLayout.MERGED_JAR).toFile())) {
            List<? extends ZipEntry> all = Collections.list(merged.entries());
            assertEquals(List.of(), all.stream().filter(e -> e.getMethod() != ZipEntry.STORED).map(ZipEntry::getName)
                    .toList());
            assertEquals("a".repeat(4096), new String(merged.getInputStream(merged.getEntry("demo/A.class"))
                    .readAllBytes(), StandardCharsets.UTF_8));
            assertEquals("demo.A\n", new String(merged.getInputStream(merged.getEntry("META-INF/services/demo.Api"))
                    .readAllBytes(), StandardCharsets.UTF_8));
        }
        try (ZipFile function = new ZipFile(zip.toFile())) {
            ZipEntry jar = function.getEntry("lib/" + SingleJarLayout.MERGED_JAR);
            assertEquals(ZipEntry.DEFLATED, jar.getMethod());
            assertTrue(jar.getCompressedSize() < 4096, "two 4 KB classes of one letter each: " + jar.getCompressedSize());
        }
    }

    // --- synthetic packages ---------------------------------------------------------------------

    /** A function.zip: root entries, then the given lib/ jars (in the map's order). */
    private Path functionZip(Map<String, ?> root, Map<String, byte[]> jars) throws IOException {
        Path zip = Files.createTempFile(dir, "function", ".zip");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(zip))) {
            z.putNextEntry(new ZipEntry("META-INF/"));
            z.closeEntry();
            for (Map.Entry<String, ?> e : new java.util.TreeMap<>(root).entrySet()) {
                z.putNextEntry(new ZipEntry(e.getKey()));
                z.write(bytes(e.getValue()));
                z.closeEntry();
            }
            z.putNextEntry(new ZipEntry("lib/"));
            z.closeEntry();
            for (Map.Entry<String, byte[]> e : jars.entrySet()) {
                z.putNextEntry(new ZipEntry(e.getKey()));
                z.write(e.getValue());
                z.closeEntry();
            }
        }
        return zip;
    }

    /** A jar with the given entries (text or bytes), in the map's order. */
    private static byte[] jar(Map<String, ?> entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(out)) {
            for (Map.Entry<String, ?> e : entries.entrySet()) {
                z.putNextEntry(new ZipEntry(e.getKey()));
                z.write(bytes(e.getValue()));
                z.closeEntry();
            }
        }
        return out.toByteArray();
    }

    private static byte[] bytes(Object value) {
        return value instanceof byte[] b ? b : value.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, byte[]> mergedJar(Path zip) throws IOException {
        try (ZipFile z = new ZipFile(zip.toFile())) {
            List<String> libJars = Collections.list(z.entries()).stream().map(ZipEntry::getName)
                    .filter(n -> n.matches("lib/[^/]+\\.jar")).toList();
            assertEquals(List.of("lib/" + SingleJarLayout.MERGED_JAR), libJars);
            try (InputStream in = z.getInputStream(z.getEntry(libJars.get(0)))) {
                return entries(in.readAllBytes());
            }
        }
    }

    private static Map<String, byte[]> entries(byte[] zip) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                entries.put(e.getName(), in.readAllBytes());
            }
        }
        return entries;
    }

    private static String text(Map<String, byte[]> entries, String name) {
        byte[] data = entries.get(name);
        assertNotNull(data, "no " + name + " in " + entries.keySet());
        return new String(data, StandardCharsets.UTF_8);
    }

    private static void write(Path root, String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private static byte[] read(Path root, String path) throws IOException {
        return Files.readAllBytes(root.resolve(path));
    }

    private static Path unpack(Path zip, Path target) throws IOException {
        try (ZipFile z = new ZipFile(zip.toFile())) {
            for (ZipEntry e : Collections.list(z.entries())) {
                Path out = target.resolve(e.getName());
                if (e.isDirectory()) {
                    Files.createDirectories(out);
                } else {
                    Files.createDirectories(out.getParent());
                    try (InputStream in = z.getInputStream(e)) {
                        Files.copy(in, out);
                    }
                }
            }
        }
        return target;
    }
}
