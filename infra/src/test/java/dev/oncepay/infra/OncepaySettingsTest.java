package dev.oncepay.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.services.logs.RetentionDays;

/** Reading context and checking the function.zip, without synthesizing. */
class OncepaySettingsTest {
    @TempDir
    Path dir;

    @Test
    void defaults() {
        OncepaySettings settings = OncepaySettings.from(name -> null);
        assertEquals(OncepaySettings.NATIVE, settings.runtime());
        assertEquals(Path.of("../target/function.zip"), settings.functionZip());
        assertEquals(256, settings.memoryMb());
        assertEquals(Optional.of(50), settings.chargeConcurrency());
        assertEquals(1, settings.reconcileRateMinutes());
        assertEquals(RetentionDays.ONE_MONTH, settings.logRetention());
        assertEquals(Optional.empty(), settings.secretArn());
    }

    @Test
    void rejectsWhatCannotBeDeployed() {
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:runtime", "graal")));
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:architecture", "riscv")));
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:logRetentionDays", "42")));
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:chargeConcurrency", "0")));
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:memoryMb", "64")));
    }

    @Test
    void withoutAFunctionZipSynthesisSaysHowToGetOne() {
        OncepaySettings settings = settings(Map.of("oncepay:functionZip", dir.resolve("missing.zip").toString()));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> FunctionCode.of(settings));
        assertTrue(e.getMessage().contains("./native-build.sh"), e.getMessage());
        assertTrue(e.getMessage().contains("oncepay:placeholderCode=true"), e.getMessage());
    }

    @Test
    void theZipMustMatchTheRuntime() throws Exception {
        Path jvmZip = Synth.zip(dir, false);
        Path nativeZip = Synth.zip(dir, true);

        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> FunctionCode.of(settings(Map.of("oncepay:functionZip", jvmZip.toString()))));
        assertTrue(e.getMessage().contains("JVM build"), e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> FunctionCode.of(settings(
                Map.of("oncepay:functionZip", nativeZip.toString(), "oncepay:runtime", "jvm"))));
        assertTrue(e.getMessage().contains("native build"), e.getMessage());
    }

    private static OncepaySettings settings(Map<String, Object> context) {
        return OncepaySettings.from(context::get);
    }
}
