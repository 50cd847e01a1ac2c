package dev.oncepay.config;

import dev.oncepay.startup.NativeReflection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The application's compiled classes (target/classes), for tests that check rules over all of them. */
public final class CompiledClasses {
    private CompiledClasses() {
    }

    public static List<Class<?>> main() {
        Path root;
        try {
            root = Path.of(NativeReflection.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> root.relativize(f).toString())
                    .filter(name -> name.startsWith("dev/oncepay/") && !name.contains("_Subclass")
                            && !name.contains("_Bean") && !name.contains("_ClientProxy"))
                    .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
                    .sorted()
                    .<Class<?>>map(CompiledClasses::load)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, CompiledClasses.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
