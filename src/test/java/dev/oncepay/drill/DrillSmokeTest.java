package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.local.LambdaPackage;
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
        Path app = LambdaPackage.current(root, root.resolve("target/drill-test/app"));
        DrillOptions options = DrillOptions.smoke(7, app, root.resolve("target/drill-test"));
        Drill.Outcome outcome = Drill.run(options, System.out);
        assertTrue(outcome.summary().contains("double charges: "), outcome.summary());
        assertEquals(0, outcome.verdict().doubleCharges(), outcome.verdict().details().toString());
        assertEquals(0, outcome.verdict().orphanCharges(), outcome.verdict().details().toString());
        assertEquals(0, outcome.verdict().lost(), outcome.verdict().details().toString());
        assertEquals(0, outcome.verdict().stuck(), outcome.verdict().details().toString());
        assertEquals(0, outcome.verdict().disagreeing(), outcome.verdict().details().toString());
        assertTrue(Files.exists(outcome.report()));
    }
}
