package dev.oncepay.build;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Re-lays a Quarkus JVM Lambda {@code function.zip} so that its task root carries one jar in
 * {@code lib/} instead of one per dependency. The Lambda runtime interface client loads the
 * function through a {@code URLClassLoader} over the task root, then {@code lib/*.jar} in lexical
 * order of their names (its {@code CustomerClassLoader}); every class lookup probes every jar
 * until one has it, which costs a cold start about 0.4 s with ~160 jars. One jar has one index.
 *
 * <p>What class loading saw before, it sees after:
 * <ul>
 * <li>an entry in several jars comes from the first jar in the client's order (the others are
 * listed in {@link Result#duplicates()}); the task root's own entries stay at the root, ahead
 * of every jar, as before;</li>
 * <li>{@code META-INF/services/*} files are concatenated in that order, each provider once, so
 * {@code ServiceLoader} finds every provider it found before;</li>
 * <li>a Multi-Release jar's {@code META-INF/versions/N/} entries are kept when that jar also
 * provides the winning base entry, and the merged manifest says {@code Multi-Release: true};
 * versioned entries of jars that are not Multi-Release were never used and are left out;</li>
 * <li>signature files are dropped (they sign jars that no longer exist); so are
 * {@code META-INF/INDEX.LIST} (a jar index of one jar would hide the merged others) and
 * {@code module-info.class} (on the class path it describes no module);</li>
 * <li>licence and notice files are kept for each source jar under
 * {@code META-INF/licenses/<jar name>/}, at their path in that jar.</li>
 * </ul>
 * The result is deterministic: entries in a stable order, fixed timestamps, so the same input
 * gives the same bytes. A zip without {@code lib/*.jar} (the native build's, with its
 * {@code bootstrap}) or one already re-laid is left untouched.
 */
public final class SingleJarLayout {
    /** The one jar in the task root's {@code lib/}. */
    public static final String MERGED_JAR = "oncepay-function.jar";
    /** Every entry's timestamp (local time as zip stores it, so the time zone of the build does not matter). */
    static final LocalDateTime ENTRY_TIME = LocalDateTime.of(1980, 2, 1, 0, 0);

    private static final String LIB = "lib/";
    private static final String SERVICES = "META-INF/services/";
    private static final String VERSIONS = "META-INF/versions/";
    private static final String LICENSES = "META-INF/licenses/";
    private static final Pattern SIGNATURE = Pattern.compile("META-INF/[^/]+\\.(SF|RSA|DSA|EC)|META-INF/SIG-[^/]+",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern LICENCE = Pattern.compile("(?i).*(licen[cs]e|notice|copying).*");
    private static final Pattern VERSIONED = Pattern.compile("META-INF/versions/(\\d+)/(.+)");

    private SingleJarLayout() {
    }

    /**
     * An entry that more than one jar had: {@code winner} is the jar the client would have loaded it from.
     *
     * @param sameContent whether every copy had the winner's bytes
     */
    public record Duplicate(String entry, String winner, List<String> shadowed, boolean sameContent) {
    }

    /**
     * @param mergedJars the jars merged, in the client's order (empty when the zip was left as it was)
     * @param entries files in the merged jar
     */
    public record Result(List<String> mergedJars, int entries, List<Duplicate> duplicates, int servicesFiles,
            int licenceFiles, int signatureFiles, boolean multiRelease) {
        boolean changed() {
            return !mergedJars.isEmpty();
        }

        /** The build log's line. */
        String summary(Path zip) {
            if (!changed()) {
                return zip + ": no lib/*.jar to merge (a native build, or merged already); left as it is";
            }
            long differing = duplicates.stream().filter(d -> !d.sameContent()).count();
            return String.format("%s: %d jars merged into lib/%s (%d entries%s); %d duplicate entries resolved in the"
                    + " runtime client's jar order (%d with differing content); %d services files concatenated;"
                    + " %d licence files under %s<jar>/; %d signature files dropped",
                    zip, mergedJars.size(), MERGED_JAR, entries, multiRelease ? ", Multi-Release" : "", duplicates.size(),
                    differing, servicesFiles, licenceFiles, LICENSES, signatureFiles);
        }
    }

    /** {@code SingleJarLayout <function.zip> [<report file>]}: re-lays the zip in place, lists the duplicates in the report. */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            throw new IllegalArgumentException("usage: SingleJarLayout <function.zip> [<duplicates report>]");
        }
        Path zip = Path.of(args[0]);
        Result result = relayout(zip);
        System.out.println("[function.zip] " + result.summary(zip));
        if (args.length == 2 && result.changed()) {
            Path report = Path.of(args[1]);
            writeReport(result, report);
            System.out.println("[function.zip] duplicates listed in " + report);
        }
    }

    /** Rewrites {@code zip} in place (through a temporary file and an atomic rename). */
    public static Result relayout(Path zip) throws IOException {
        Path temp = Files.createTempFile(zip.toAbsolutePath().getParent(), zip.getFileName().toString(), ".tmp");
        try {
            Result result;
            try (ZipFile in = new ZipFile(zip.toFile()); OutputStream out = Files.newOutputStream(temp)) {
                List<String> jars = libJars(in);
                if (jars.isEmpty() || jars.equals(List.of(LIB + MERGED_JAR))) {
                    return new Result(List.of(), 0, List.of(), 0, 0, 0, false);
                }
                result = write(in, jars, out);
            }
            if (Files.getFileAttributeView(zip, PosixFileAttributeView.class) != null) {
                Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(zip));
            }
            Files.move(temp, zip, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return result;
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * The jars the client puts on its class path, in its order: files directly in {@code lib/}
     * whose name ends in {@code .jar} after at least one character, sorted as strings.
     */
    static List<String> libJars(ZipFile zip) {
        List<String> jars = new ArrayList<>();
        for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements();) {
            ZipEntry entry = e.nextElement();
            String name = entry.getName();
            if (!entry.isDirectory() && name.startsWith(LIB) && name.indexOf('/', LIB.length()) < 0
                    && name.length() - LIB.length() > ".jar".length() && name.endsWith(".jar")) {
                jars.add(name);
            }
        }
        Collections.sort(jars);
        return jars;
    }

    private static Result write(ZipFile in, List<String> jars, OutputStream out) throws IOException {
        Set<String> jarSet = new HashSet<>(jars);
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            // The task root's own entries first, in their order: they stay where they were.
            Set<String> written = new HashSet<>();
            for (Enumeration<? extends ZipEntry> e = in.entries(); e.hasMoreElements();) {
                ZipEntry entry = e.nextElement();
                if (jarSet.contains(entry.getName())) {
                    continue;
                }
                if (!written.add(entry.getName())) {
                    // Quarkus writes META-INF/ twice; a file twice would be ambiguous once unpacked.
                    if (entry.isDirectory()) {
                        continue;
                    }
                    throw new IOException("the task root has " + entry.getName() + " twice");
                }
                if (entry.isDirectory()) {
                    zip.putNextEntry(entry(entry.getName()));
                } else {
                    zip.putNextEntry(entry(entry.getName()));
                    try (InputStream data = in.getInputStream(entry)) {
                        data.transferTo(zip);
                    }
                }
                zip.closeEntry();
            }
            Merge merge = new Merge();
            for (String jar : jars) {
                merge.add(jar.substring(LIB.length()), read(in, jar));
            }
            byte[] merged = merge.jar();
            if (!written.contains(LIB)) {
                zip.putNextEntry(entry(LIB));
                zip.closeEntry();
            }
            // Deflated in function.zip, as Quarkus' zip does with each jar; its stored entries
            // compress better as one stream than each on its own.
            ZipEntry jarEntry = entry(LIB + MERGED_JAR);
            zip.putNextEntry(jarEntry);
            zip.write(merged);
            zip.closeEntry();
            return merge.result(jars.stream().map(j -> j.substring(LIB.length())).toList());
        }
    }

    private static byte[] read(ZipFile zip, String name) throws IOException {
        try (InputStream data = zip.getInputStream(zip.getEntry(name))) {
            return data.readAllBytes();
        }
    }

    private static ZipEntry entry(String name) {
        ZipEntry entry = new ZipEntry(name);
        entry.setTimeLocal(ENTRY_TIME);
        return entry;
    }

    /**
     * Writes an entry uncompressed. The merged jar's entries are stored, not deflated: under the
     * managed runtime a sandbox reads thousands of classes from it through the runtime client's
     * class loader at every cold start, so inflating was part of every start. Measured when the
     * local run's sandboxes still loaded the function that way (their AppCDS archive then read each
     * archived class's bytes from the jar to check them): stored, a charge sandbox's init took
     * 31-136 ms less and its CPU to the first answer 60-215 ms less (three alternating pairs of
     * runs, 8 cold starts each); function.zip, which deflates the jar as a whole, fell from 16.1 to
     * 11.3 MB.
     */
    private static void putStored(ZipOutputStream jar, String name, byte[] data) throws IOException {
        ZipEntry entry = entry(name);
        entry.setMethod(ZipEntry.STORED);
        entry.setSize(data.length);
        entry.setCompressedSize(data.length);
        CRC32 crc = new CRC32();
        crc.update(data);
        entry.setCrc(crc.getValue());
        jar.putNextEntry(entry);
        jar.write(data);
        jar.closeEntry();
    }

    /** Lists each duplicate entry, its winner and the jars it shadowed, one per line. */
    static void writeReport(Result result, Path report) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("# " + result.duplicates().size() + " entries found in more than one jar of lib/; the first jar in the"
                + " runtime client's order (lexical by name) won, as it did when the jars were separate");
        lines.add("# entry <TAB> winner <TAB> same|differs <TAB> shadowed jars");
        for (Duplicate d : result.duplicates()) {
            lines.add(d.entry() + "\t" + d.winner() + "\t" + (d.sameContent() ? "same" : "differs") + "\t"
                    + String.join(" ", d.shadowed()));
        }
        Files.createDirectories(report.toAbsolutePath().getParent());
        Files.write(report, lines, StandardCharsets.UTF_8);
    }

    /** The merged jar being assembled, jar by jar in the client's order. */
    private static final class Merge {
        /** Kept entries in first-seen order: name → bytes (null for a directory). */
        private final Map<String, byte[]> entries = new LinkedHashMap<>();
        private final Map<String, String> winners = new LinkedHashMap<>();
        private final Map<String, Duplicate> duplicates = new LinkedHashMap<>();
        private final Map<String, LinkedHashSet<String>> services = new LinkedHashMap<>();
        /** Versioned entries of Multi-Release jars, decided once every base entry's winner is known. */
        private final List<Versioned> versioned = new ArrayList<>();
        private int licences;
        private int signatures;
        private boolean multiRelease;

        private record Versioned(String jar, String name, String base, byte[] data) {
        }

        void add(String jar, byte[] bytes) throws IOException {
            Map<String, byte[]> files = new LinkedHashMap<>();
            List<String> directories = new ArrayList<>();
            try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(bytes))) {
                for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                    if (e.isDirectory()) {
                        directories.add(e.getName());
                    } else {
                        files.put(e.getName(), zip.readAllBytes());
                    }
                }
            }
            boolean jarIsMultiRelease = isMultiRelease(files.get(JarFile.MANIFEST_NAME));
            multiRelease |= jarIsMultiRelease;
            for (String directory : directories) {
                if (!directory.startsWith(VERSIONS) && !directory.equals("META-INF/")) {
                    entries.putIfAbsent(directory, null);
                }
            }
            for (Map.Entry<String, byte[]> file : files.entrySet()) {
                String name = file.getKey();
                byte[] data = file.getValue();
                if (name.equals(JarFile.MANIFEST_NAME) || name.equals("META-INF/INDEX.LIST")
                        || name.equals("module-info.class") || name.endsWith("/module-info.class")) {
                    continue;
                }
                if (SIGNATURE.matcher(name).matches()) {
                    signatures++;
                } else if (name.startsWith(SERVICES) && name.indexOf('/', SERVICES.length()) < 0) {
                    addServices(name, data);
                } else if (isLicence(name)) {
                    put(LICENSES + jar + "/" + name, jar, data);
                    licences++;
                } else if (name.startsWith(VERSIONS)) {
                    Matcher versionedEntry = VERSIONED.matcher(name);
                    if (jarIsMultiRelease && versionedEntry.matches()) {
                        versioned.add(new Versioned(jar, name, versionedEntry.group(2), data));
                    }
                } else {
                    put(name, jar, data);
                }
            }
        }

        private static boolean isMultiRelease(byte[] manifest) throws IOException {
            if (manifest == null) {
                return false;
            }
            String value = new Manifest(new ByteArrayInputStream(manifest)).getMainAttributes()
                    .getValue(Attributes.Name.MULTI_RELEASE);
            return "true".equalsIgnoreCase(value == null ? null : value.trim());
        }

        /** A licence or notice file: at the jar's root or under its {@code META-INF/}. */
        private static boolean isLicence(String name) {
            boolean inMetaInf = name.startsWith("META-INF/") && !name.startsWith(VERSIONS) && !name.startsWith(SERVICES)
                    && !name.startsWith("META-INF/maven/");
            return (inMetaInf || name.indexOf('/') < 0) && LICENCE.matcher(name).matches() && !name.endsWith(".class");
        }

        private void put(String name, String jar, byte[] data) {
            String winner = winners.putIfAbsent(name, jar);
            if (winner == null) {
                entries.put(name, data);
                return;
            }
            boolean same = Arrays.equals(entries.get(name), data);
            Duplicate d = duplicates.get(name);
            List<String> shadowed = new ArrayList<>(d == null ? List.of() : d.shadowed());
            shadowed.add(jar);
            duplicates.put(name, new Duplicate(name, winner, List.copyOf(shadowed), same && (d == null || d.sameContent())));
        }

        private void addServices(String name, byte[] data) {
            LinkedHashSet<String> providers = services.computeIfAbsent(name, n -> new LinkedHashSet<>());
            for (String line : new String(data, StandardCharsets.UTF_8).split("\\R")) {
                int comment = line.indexOf('#');
                String provider = (comment >= 0 ? line.substring(0, comment) : line).trim();
                if (!provider.isEmpty()) {
                    providers.add(provider);
                }
            }
        }

        byte[] jar() throws IOException {
            // A versioned entry counts only where its jar also gave the base entry (or nobody did):
            // otherwise the class came from an earlier jar, which had no such version.
            for (Versioned v : versioned) {
                String baseWinner = winners.get(v.base());
                if (baseWinner == null || baseWinner.equals(v.jar())) {
                    put(v.name(), v.jar(), v.data());
                }
            }
            Manifest manifest = new Manifest();
            manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
            manifest.getMainAttributes().putValue("Created-By", "oncepay " + SingleJarLayout.class.getSimpleName());
            if (multiRelease) {
                manifest.getMainAttributes().put(Attributes.Name.MULTI_RELEASE, "true");
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ZipOutputStream jar = new ZipOutputStream(bytes)) {
                putStored(jar, "META-INF/", new byte[0]);
                ByteArrayOutputStream manifestBytes = new ByteArrayOutputStream();
                manifest.write(manifestBytes);
                putStored(jar, JarFile.MANIFEST_NAME, manifestBytes.toByteArray());
                for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                    putStored(jar, e.getKey(), e.getValue() == null ? new byte[0] : e.getValue());
                }
                for (Map.Entry<String, LinkedHashSet<String>> s : services.entrySet()) {
                    putStored(jar, s.getKey(),
                            (String.join("\n", s.getValue()) + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
            return bytes.toByteArray();
        }

        Result result(List<String> jars) {
            int files = (int) entries.values().stream().filter(v -> v != null).count() + services.size() + 1;
            return new Result(jars, files, List.copyOf(duplicates.values()), services.size(), licences, signatures,
                    multiRelease);
        }
    }
}
