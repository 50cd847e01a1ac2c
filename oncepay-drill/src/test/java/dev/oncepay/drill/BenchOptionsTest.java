package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark's command line: the early regime's and the queued charges' knobs and {@code --primed}, a flag without a value. */
class BenchOptionsTest {

    @Test
    void theEarlyRegimesKnobsAndPrimedAreRead() {
        BenchOptions options = BenchOptions.parse(List.of("--bench", "--early-warmup", "5", "--primed",
                "--early-charges=40", "--warmup", "100", "--queued-charges", "20"));

        assertEquals(20, options.queuedCharges());
        assertEquals(5, options.earlyWarmup());
        assertEquals(40, options.earlyCharges());
        assertEquals(100, options.warmup());
        assertTrue(options.primed());
    }

    @Test
    void withoutThemTheDefaultsHold() {
        BenchOptions full = BenchOptions.parse(List.of("--bench"));
        BenchOptions quick = BenchOptions.parse(List.of("--bench-quick"));

        assertEquals(BenchOptions.defaults(), full);
        assertEquals(BenchOptions.quick(), quick);
        assertEquals(2, full.earlyWarmup());
        assertFalse(full.primed());
        assertTrue(quick.earlyCharges() < full.earlyCharges(), "the quick run stays short");
        assertTrue(quick.queuedCharges() < full.queuedCharges(), "the quick run stays short");
    }

    @Test
    void anEarlyRegimeWithoutChargesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(List.of("--bench", "--early-charges", "0")));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(List.of("--bench", "--queued-charges", "0")));
    }
}
