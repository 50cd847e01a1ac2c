package dev.oncepay.contract;

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

    /** Counter (Count): 1 for each payment or refund moved to {@code NEEDS_REVIEW}. Alarmed on Sum. */
    public static final String NEEDS_REVIEW = "NeedsReview";

    /**
     * Counter (Count): 1 each time a provider account's fleet breaker opens from closed (counted once,
     * by the one writer that opens it). Alarmed on Sum.
     */
    public static final String BREAKER_OPEN = "BreakerOpen";

    /** Counter (Count): 1 each time an open fleet breaker lets its one probe through (open → half-open). */
    public static final String BREAKER_HALF_OPEN = "BreakerHalfOpen";

    /** Counter (Count): 1 each time a probe's answer closes a fleet breaker (half-open → closed). */
    public static final String BREAKER_CLOSED = "BreakerClosed";

    /** Counter (Count): 1 each time a failed or slow probe re-opens a fleet breaker (half-open → open). */
    public static final String BREAKER_REOPEN = "BreakerReopen";

    /** Counter (Count): 1 each time the fleet breaker's own item could not be read or written; it failed open. */
    public static final String BREAKER_STORE_FAILED = "BreakerStoreFailed";

    /** Counter (Count): 1 each time a retryable provider fault was not retried because the retry budget was spent. */
    public static final String RETRY_BUDGET_SPENT = "RetryBudgetSpent";

    /**
     * Counter (Count): 1 each time a provider call is refused because its provider account already
     * has its fleet-wide cap of calls in flight (the bulkhead): a charge answered 503
     * {@code provider-at-capacity}, or a sweep deferred a payment. A replay answered meanwhile is not counted.
     */
    public static final String PROVIDER_AT_CAPACITY = "ProviderAtCapacity";

    // --- What on-call needs: dimensioned metrics (dimensions named below; the alarms above stay dimensionless) ---

    /** Dimension: the function that emitted a metric ({@code charge}, {@code webhook}, {@code reconcile}). */
    public static final String DIM_FUNCTION = "Function";
    /**
     * Dimension: an answer's status, a 5xx with its problem type ({@code 201}, {@code 202},
     * {@code 402}, {@code 409}, {@code 422}, {@code 400}, {@code 401}, {@code 404},
     * {@code 503-provider-unavailable}, {@code 503-provider-at-capacity}, {@code 503-store-unavailable},
     * ...); the causes of a 4xx are in the request's log line ({@code problemType}).
     */
    public static final String DIM_STATUS = "Status";
    /** Dimension: a provider call's operation ({@code charge}, {@code lookup}, {@code cancel}). */
    public static final String DIM_OPERATION = "Operation";
    /** Dimension: a provider call's outcome ({@code ProviderOutcome} name, or {@code found}/{@code failed} for lookups). */
    public static final String DIM_OUTCOME = "Outcome";

    /** Counter (Count), dimensions Function+Status: 1 per HTTP answer. */
    public static final String ANSWERS = "Answers";
    /** Counter (Count), dimension Function: 1 per answer replayed from an idempotency key ({@code Idempotent-Replayed}). */
    public static final String REPLAYS = "Replays";
    /** Timer (Milliseconds), dimensions Operation+Outcome: one whole provider call, retries included. */
    public static final String PROVIDER_LATENCY = "ProviderLatency";
    /** Counter (Count), dimension Operation: 1 per retried provider attempt. */
    public static final String PROVIDER_RETRIES = "ProviderRetries";
    /** Gauge (Count), emitted by each reconcile run from the whole attention index: PENDING payments older than the sweep threshold. */
    public static final String PENDING_BACKLOG = "PendingBacklog";
    /** Gauge (Seconds), emitted by each reconcile run: age of the oldest PENDING payment. */
    public static final String PENDING_OLDEST_AGE = "PendingOldestAgeSeconds";
    /** Gauge (Count), emitted by each reconcile run from the whole attention index: payments in NEEDS_REVIEW. */
    public static final String NEEDS_REVIEW_BACKLOG = "NeedsReviewBacklog";
    /**
     * Gauge (Count), emitted by each reconcile run from the whole attention index: FAILED payments
     * whose provider cancel is pending (a declined charge the customer could still complete).
     */
    public static final String CANCEL_PENDING_BACKLOG = "CancelPendingBacklog";
    /**
     * Timer (Milliseconds), emitted by the charge worker per message it takes up: from the request
     * that queued the charge to the worker's start (waiting in the queue and its delays included).
     */
    public static final String CHARGE_QUEUE_LAG = "ChargeQueueLag";
    /**
     * Counter (Count): 1 each time the charge worker puts a charge back on its queue with a delay (the
     * account's breaker or bulkhead refused it, or another run holds it) instead of failing it.
     */
    public static final String CHARGE_DELAYED = "ChargeDelayed";

    /** Counter (Count): 1 per operator resolution applied (not per replay). */
    public static final String RESOLUTIONS = "Resolutions";

    /** Counter (Count): 1 for each event delivery dead-lettered after its horizon (3 days). Alarmed on Sum. */
    public static final String EVENT_DELIVERY_DEAD = "EventDeliveryDead";

    /** Counter (Count): 1 for each failed delivery attempt (not 2xx in time, refused, redirected). */
    public static final String EVENT_DELIVERY_FAILED = "EventDeliveryFailed";

    /** Gauge (Count), emitted by each reconcile run: events written but not yet on the event queue, past the relay's grace. Alarmed on Maximum. */
    public static final String OUTBOX_BACKLOG = "OutboxBacklog";

    /** Value (Milliseconds): from an event's write to its acknowledged delivery, per delivery. */
    public static final String EVENT_DELIVERY_LAG = "EventDeliveryLag";
}
