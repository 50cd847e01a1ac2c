package dev.oncepay.config;

/**
 * oncepay's custom CloudWatch metrics: the contract between the code that emits them (as
 * Embedded Metric Format log lines, no dimensions) and the alarms in {@code infra/}, which
 * compiles this very file. Changing a name here changes both sides.
 */
public final class Metrics {
    private Metrics() {
    }

    /** CloudWatch namespace of every metric below. */
    public static final String NAMESPACE = "oncepay";

    /** Gauge (Count), emitted by each reconcile run: payments in {@code UNKNOWN} it saw waiting. Alarmed on Maximum. */
    public static final String UNKNOWN_BACKLOG = "UnknownBacklog";

    /** Gauge (Seconds), emitted by each reconcile run: age of the oldest {@code UNKNOWN} payment. Alarmed on Maximum. */
    public static final String UNKNOWN_OLDEST_AGE = "UnknownOldestAgeSeconds";

    /** Counter (Count): 1 for each payment moved to {@code NEEDS_REVIEW}. Alarmed on Sum. */
    public static final String NEEDS_REVIEW = "NeedsReview";

    /** Counter (Count): 1 for each provider call refused because a circuit breaker was open. Alarmed on Sum. */
    public static final String BREAKER_OPEN = "BreakerOpen";
}
