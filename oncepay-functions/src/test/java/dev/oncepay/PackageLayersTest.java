package dev.oncepay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The package layers of docs/architecture.md, read from the sources: a package imports only
 * packages of a lower layer, so nothing below knows what sits above it. oncepay-contract
 * ({@code dev.oncepay.contract}) is another module and may be imported everywhere.
 */
class PackageLayersTest {
    /** Lowest first. */
    static final List<List<String>> LAYERS = List.of(
            List.of("config", "validation"),
            List.of("http", "money"),
            List.of("store"),
            List.of("payment", "idempotency"),
            List.of("provider.spi"),
            List.of("provider.transport", "provider.webhook"),
            List.of("provider.policy"),
            List.of("provider.psp", "provider.stripe"),
            List.of("provider"),
            List.of("cancel", "order", "refund", "queue"),
            List.of("events"),
            List.of("delivery"),
            List.of("charge", "wallet", "admin", "webhook", "reconcile"),
            List.of("api"),
            List.of("function"),
            List.of("startup"));

    private static final Path SOURCES = Path.of("src/main/java/dev/oncepay");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?dev\\.oncepay\\.([a-z.]+)\\.[A-Z]",
            Pattern.MULTILINE);

    /** One import of a source file: its package, the imported package. */
    private record Import(Path file, String from, String to) {
    }

    @Test
    void noPackageImportsOneOfItsOwnLayerOrAbove() throws IOException {
        List<String> upward = new ArrayList<>();
        for (Import i : imports()) {
            if (!i.to().equals(i.from()) && !i.to().equals("contract") && layerOf(i.to()) >= layerOf(i.from())) {
                upward.add(SOURCES.relativize(i.file()) + " imports dev.oncepay." + i.to());
            }
        }
        assertEquals(List.of(), upward, "imports of a package's own layer or above");
    }

    /** Event delivery's calls to merchants: only its function, the operator API and priming use them. */
    static final List<String> DELIVERY_USERS = List.of("delivery", "function", "admin", "api", "startup");

    @Test
    void onlyTheFunctionTheOperatorApiAndPrimingImportDelivery() throws IOException {
        List<String> users = new ArrayList<>();
        for (Import i : imports()) {
            if (i.to().equals("delivery") && !DELIVERY_USERS.contains(i.from())) {
                users.add(SOURCES.relativize(i.file()) + " imports dev.oncepay.delivery");
            }
        }
        assertEquals(List.of(), users, "imports of dev.oncepay.delivery outside " + DELIVERY_USERS);
    }

    private static List<Import> imports() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(SOURCES)) {
            files = walk.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
        List<Import> found = new ArrayList<>();
        for (Path file : files) {
            String from = SOURCES.relativize(file.getParent()).toString().replace('/', '.');
            Matcher imports = IMPORT.matcher(Files.readString(file));
            while (imports.find()) {
                found.add(new Import(file, from, imports.group(1)));
            }
        }
        return found;
    }

    private static int layerOf(String pkg) {
        for (int i = 0; i < LAYERS.size(); i++) {
            if (LAYERS.get(i).contains(pkg)) {
                return i;
            }
        }
        throw new AssertionError("package dev.oncepay." + pkg + " has no layer in PackageLayersTest.LAYERS");
    }
}
