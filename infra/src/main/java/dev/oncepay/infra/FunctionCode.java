package dev.oncepay.infra;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import software.amazon.awscdk.services.lambda.Code;

/**
 * The one function.zip that every function runs. Synthesis never builds it: it takes the
 * zip that {@code ./native-build.sh} produced, checks that it matches the chosen runtime (a native
 * zip has {@code bootstrap} at its root, a JVM zip has not), or, when asked, a placeholder.
 */
final class FunctionCode {
    static final String PLACEHOLDER_MESSAGE =
            "placeholder code: this stack was synthesized without oncepay-functions/target/function.zip and cannot serve requests";

    private FunctionCode() {
    }

    /** Whether the stack runs a placeholder (no function.zip, placeholder allowed). */
    static boolean isPlaceholder(OncepaySettings settings) {
        return !Files.isRegularFile(settings.functionZip()) && settings.placeholderCode();
    }

    static Code of(OncepaySettings settings) {
        Path zip = settings.functionZip();
        if (Files.isRegularFile(zip)) {
            check(zip, settings.isNative());
            return Code.fromAsset(zip.toString());
        }
        if (settings.placeholderCode()) {
            return Code.fromAsset(placeholder().toString());
        }
        throw new IllegalStateException("no function code at " + zip.toAbsolutePath().normalize()
                + ": build it with ./native-build.sh" + (settings.isNative() ? "" : " --jvm")
                + " (or point -c oncepay:functionZip=<path> at it), or synthesize without it with"
                + " -c oncepay:placeholderCode=true");
    }

    private static void check(Path zip, boolean expectNative) {
        boolean nativeZip;
        try (ZipFile file = new ZipFile(zip.toFile())) {
            nativeZip = file.getEntry("bootstrap") != null;
        } catch (IOException e) {
            throw new IllegalStateException(zip + " is not a readable zip: " + e.getMessage(), e);
        }
        if (expectNative && !nativeZip) {
            throw new IllegalStateException(zip + " is a JVM build (no bootstrap): deploy it with -c oncepay:runtime=jvm,"
                    + " or build the native one with ./native-build.sh");
        }
        if (!expectNative && nativeZip) {
            throw new IllegalStateException(zip + " is a native build (it has a bootstrap): deploy it with the default"
                    + " runtime (native), or build the JVM one with ./native-build.sh --jvm");
        }
    }

    /**
     * A zip whose {@code bootstrap} fails loudly. Its bytes never change (fixed entry times), so
     * the asset hash and the synthesized template are stable.
     */
    static Path placeholder() {
        try {
            Path dir = Files.createTempDirectory("oncepay-placeholder");
            Path zip = dir.resolve("function.zip");
            try (OutputStream out = Files.newOutputStream(zip); ZipOutputStream z = new ZipOutputStream(out)) {
                ZipEntry bootstrap = new ZipEntry("bootstrap");
                bootstrap.setTime(315532800000L); // 1980-01-01, the zip format's epoch
                z.putNextEntry(bootstrap);
                z.write(("#!/bin/sh\necho '" + PLACEHOLDER_MESSAGE + "' >&2\nexit 1\n").getBytes(StandardCharsets.UTF_8));
                z.closeEntry();
            }
            zip.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return zip;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
