package dev.oncepay.provider;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;

/**
 * The time limits of one guarded {@link PspCalls} method as SmallRye enforces them: the
 * annotation values, overridden per method by MicroProfile Fault Tolerance configuration
 * ({@code dev.oncepay.provider.PspCalls/charge/Retry/maxDuration}, {@code .../durationUnit},
 * {@code .../Timeout/value}, {@code .../unit}, {@code .../Retry/delay}, {@code .../delayUnit}).
 * Read once, so the deadline arithmetic uses the numbers that are really in force.
 *
 * @param budget the whole call, every attempt and wait ({@code Retry.maxDuration})
 * @param attemptTimeout the longest one attempt may take ({@code Timeout})
 * @param backoffBase the first backoff ceiling ({@code Retry.delay})
 */
record CallLimits(Duration budget, Duration attemptTimeout, Duration backoffBase) {

    static CallLimits of(Class<?> type, String methodName, Config config) {
        Method method = Arrays.stream(type.getDeclaredMethods()).filter(m -> m.getName().equals(methodName)
                && m.isAnnotationPresent(Retry.class)).findFirst()
                .orElseThrow(() -> new IllegalStateException(type.getName() + "." + methodName + " has no @Retry"));
        Retry retry = method.getAnnotation(Retry.class);
        Timeout timeout = method.getAnnotation(Timeout.class);
        String prefix = type.getName() + "/" + methodName + "/";
        return new CallLimits(
                duration(config, prefix + "Retry/maxDuration", retry.maxDuration(), prefix + "Retry/durationUnit",
                        retry.durationUnit()),
                duration(config, prefix + "Timeout/value", timeout.value(), prefix + "Timeout/unit", timeout.unit()),
                duration(config, prefix + "Retry/delay", retry.delay(), prefix + "Retry/delayUnit", retry.delayUnit()));
    }

    private static Duration duration(Config config, String valueKey, long value, String unitKey, ChronoUnit unit) {
        long amount = config.getOptionalValue(valueKey, Long.class).orElse(value);
        ChronoUnit in = config.getOptionalValue(unitKey, String.class).map(ChronoUnit::valueOf).orElse(unit);
        return Duration.of(amount, in);
    }
}
