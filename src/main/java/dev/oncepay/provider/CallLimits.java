package dev.oncepay.provider;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.eclipse.microprofile.config.Config;

/**
 * The time limits of one guarded {@link PspCalls} method as SmallRye enforces them: the
 * annotation values, overridden per method by MicroProfile Fault Tolerance configuration
 * ({@code dev.oncepay.provider.PspCalls/charge/Retry/maxDuration} with {@code .../durationUnit},
 * {@code .../Timeout/value} with {@code .../unit}, {@code .../Retry/delay} with
 * {@code .../delayUnit}; a value overridden without its unit keeps the annotation's unit). Read
 * once, so the deadline arithmetic uses the numbers really in force — without reflection, which a
 * native image would not allow for this class.
 *
 * @param budget the whole call, every attempt and wait ({@code Retry.maxDuration})
 * @param attemptTimeout the longest one attempt may take ({@code Timeout})
 * @param backoffBase the first backoff ceiling ({@code Retry.delay})
 */
record CallLimits(Duration budget, Duration attemptTimeout, Duration backoffBase) {

    /** @param maxDurationSeconds, timeoutSeconds, delayMillis the method's annotation values, in their units */
    static CallLimits of(Config config, String method, long maxDurationSeconds, long timeoutSeconds, long delayMillis) {
        String prefix = PspCalls.class.getName() + "/" + method + "/";
        return new CallLimits(
                duration(config, prefix + "Retry/maxDuration", maxDurationSeconds, prefix + "Retry/durationUnit",
                        ChronoUnit.SECONDS),
                duration(config, prefix + "Timeout/value", timeoutSeconds, prefix + "Timeout/unit", ChronoUnit.SECONDS),
                duration(config, prefix + "Retry/delay", delayMillis, prefix + "Retry/delayUnit", ChronoUnit.MILLIS));
    }

    private static Duration duration(Config config, String valueKey, long value, String unitKey, ChronoUnit unit) {
        long amount = config.getOptionalValue(valueKey, Long.class).orElse(value);
        ChronoUnit in = config.getOptionalValue(unitKey, String.class).map(ChronoUnit::valueOf).orElse(unit);
        return Duration.of(amount, in);
    }
}
