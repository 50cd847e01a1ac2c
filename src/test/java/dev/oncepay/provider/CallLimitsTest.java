package dev.oncepay.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smallrye.config.SmallRyeConfigBuilder;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.junit.jupiter.api.Test;

/** The deadline arithmetic uses the limits SmallRye enforces: the annotations, as overridden. */
class CallLimitsTest {
    private static final String CHARGE = "dev.oncepay.provider.PspCalls/charge/";

    @Test
    void withoutOverridesTheyAreTheAnnotations() {
        for (String method : new String[] { "charge", "chargesByReference" }) {
            Method guarded = Arrays.stream(PspCalls.class.getDeclaredMethods()).filter(m -> m.getName().equals(method))
                    .findFirst().orElseThrow();
            Retry retry = guarded.getAnnotation(Retry.class);
            Timeout timeout = guarded.getAnnotation(Timeout.class);
            CallLimits limits = CallLimits.of(config(Map.of()), method, retry.maxDuration(), timeout.value(), retry.delay());
            assertEquals(new CallLimits(Duration.of(retry.maxDuration(), retry.durationUnit()),
                    Duration.of(timeout.value(), timeout.unit()), Duration.of(retry.delay(), retry.delayUnit())), limits);
        }
    }

    @Test
    void anOverriddenValueKeepsTheAnnotationsUnitUnlessItsUnitIsOverriddenToo() {
        CallLimits valueOnly = CallLimits.of(config(Map.of(CHARGE + "Timeout/value", "3000", CHARGE + "Retry/delay", "20")),
                "charge", 8, 6, 100);
        assertEquals(Duration.ofSeconds(3000), valueOnly.attemptTimeout());
        assertEquals(Duration.ofMillis(20), valueOnly.backoffBase());

        CallLimits withUnits = CallLimits.of(config(Map.of(CHARGE + "Timeout/value", "3000", CHARGE + "Timeout/unit", "MILLIS",
                CHARGE + "Retry/maxDuration", "20", CHARGE + "Retry/durationUnit", "SECONDS")), "charge", 8, 6, 100);
        assertEquals(new CallLimits(Duration.ofSeconds(20), Duration.ofMillis(3000), Duration.ofMillis(100)), withUnits);
    }

    private static Config config(Map<String, String> values) {
        return new SmallRyeConfigBuilder().withDefaultValues(values).build();
    }
}
