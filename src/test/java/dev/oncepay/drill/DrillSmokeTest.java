package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drill's CI configuration ({@link DrillOptions#smoke}): a couple of hundred seeded payments
 * through the real local run with provider faults, an outage and killed sandboxes. It asserts only
 * the invariants — no double charge, nothing lost or stuck, every client's last answer agrees with
 * the ledger — never timings.
 */
@Tag("local-run")
class DrillSmokeTest {

    @Test
    @Timeout(420)
    void noDoubleChargeNothingLostOrStuckUnderFaultsAndCrashes() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("package.json"))) {
            root = root.getParent();
        }
        Path app = lambdaPackage(root, root.resolve("target/drill-test/app"));
        DrillOptions options = DrillOptions.smoke(7, app, root.resolve("target/drill-test"));
        Drill.Outcome outcome = Drill.run(options, System.out);
        assertTrue(outcome.summary().contains("double charges: "), outcome.summary());
        assertEquals(0, outcome.verdict().doubleCharges(), outcome.verdict().details().toString());
        assertEquals(0, outcome.verdict().lost(), outcome.verdict().details().toString());
        assertEquals(0, outcome.verdict().stuck(), outcome.verdict().details().toString());
        assertEquals(0, outcome.verdict().disagreeing(), outcome.verdict().details().toString());
        assertTrue(Files.exists(outcome.report()));
    }

    /**
     * The local run's own packaging helper ({@code LambdaPackage.current}: {@code target/function.zip}
     * when up to date, else Quarkus' production build from {@code target/classes}) is package-private;
     * reflection reuses it instead of copying it.
     */
    private static Path lambdaPackage(Path root, Path outputDir) throws Exception {
        Class<?> type = Class.forName("dev.oncepay.local.LambdaPackage");
        Method current = type.getDeclaredMethod("current", Path.class, Path.class);
        current.setAccessible(true);
        return (Path) current.invoke(null, root, outputDir);
    }
}
