package dev.oncepay.sim;

import static dev.oncepay.testkit.FaultFields.bool;
import static dev.oncepay.testkit.FaultFields.number;
import static dev.oncepay.testkit.FaultFields.overlay;
import static dev.oncepay.testkit.FaultFields.requireNonNegative;
import static dev.oncepay.testkit.FaultFields.requireRate;
import static dev.oncepay.testkit.FaultFields.wholeNumber;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;
import java.util.Set;

/**
 * The simulator's fault settings, as read and written by {@code /_sim/faults} (field by field in
 * oncepay-sim/README.md). Rates are probabilities per request in 0..1.
 *
 * <p>Besides the plain fault rates: {@code commitThenTimeoutMs} (how long a commit-then-timeout answer
 * is held back) and the habits of real providers: {@code nonFinalRate} (a {@code 2xx} saying
 * {@code processing}), {@code emptyBodyRate} (a {@code 200}/{@code 204} without a body),
 * {@code serverErrorRetryAfterSeconds} ({@code Retry-After} on every {@code 5xx}),
 * {@code conflictRate} ({@code 409}: the key is in flight), {@code lookupLagMs} (charges reach
 * lookups late) and {@code malformedLookupRate} (a {@code 2xx} lookup without its list); and
 * {@code stripeLatencyMs}, latency for the Stripe API only, so one provider account can be slow
 * while the other stays fast. Refunds ({@code POST /v1/refunds}) meet the same faults from their own
 * dice, plus {@code refundFailRate} (a refund the provider refuses after accepting it) and
 * {@code refundSettleMs} (how long a {@code pending} refund takes to settle).
 */
public record Faults(
        long latencyMs,
        double serverErrorRate,
        double rateLimitRate,
        long retryAfterSeconds,
        double resetRate,
        double commitThenTimeoutRate,
        long commitThenTimeoutMs,
        double declineRate,
        boolean outage,
        double webhookDuplicateRate,
        boolean webhookReorder,
        double nonFinalRate,
        double emptyBodyRate,
        long serverErrorRetryAfterSeconds,
        double conflictRate,
        long lookupLagMs,
        double malformedLookupRate,
        long stripeLatencyMs,
        double refundFailRate,
        long refundSettleMs) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of(
            "latencyMs", "serverErrorRate", "rateLimitRate", "retryAfterSeconds", "resetRate",
            "commitThenTimeoutRate", "commitThenTimeoutMs", "declineRate", "outage",
            "webhookDuplicateRate", "webhookReorder", "nonFinalRate", "emptyBodyRate",
            "serverErrorRetryAfterSeconds", "conflictRate", "lookupLagMs", "malformedLookupRate",
            "stripeLatencyMs", "refundFailRate", "refundSettleMs");

    public Faults {
        requireNonNegative("latencyMs", latencyMs);
        requireNonNegative("retryAfterSeconds", retryAfterSeconds);
        requireNonNegative("commitThenTimeoutMs", commitThenTimeoutMs);
        requireNonNegative("serverErrorRetryAfterSeconds", serverErrorRetryAfterSeconds);
        requireNonNegative("lookupLagMs", lookupLagMs);
        requireNonNegative("stripeLatencyMs", stripeLatencyMs);
        requireNonNegative("refundSettleMs", refundSettleMs);
        requireRate("serverErrorRate", serverErrorRate);
        requireRate("rateLimitRate", rateLimitRate);
        requireRate("resetRate", resetRate);
        requireRate("commitThenTimeoutRate", commitThenTimeoutRate);
        requireRate("declineRate", declineRate);
        requireRate("webhookDuplicateRate", webhookDuplicateRate);
        requireRate("nonFinalRate", nonFinalRate);
        requireRate("emptyBodyRate", emptyBodyRate);
        requireRate("conflictRate", conflictRate);
        requireRate("malformedLookupRate", malformedLookupRate);
        requireRate("refundFailRate", refundFailRate);
    }

    /** A well-behaved provider. */
    public static Faults none() {
        return new Faults(0, 0.0, 0.0, 1, 0.0, 0.0, 30_000, 0.0, false, 0.0, false, 0.0, 0.0, 0, 0.0, 0, 0.0, 0, 0.0, 200);
    }

    /**
     * Decides the faults for one charge request. Every fault draws exactly once, in a fixed order,
     * whether or not its rate is set, so with a given seed request N meets the same dice whatever
     * else is configured.
     */
    FaultPlan roll(Random random) {
        return roll(random, declineRate);
    }

    /**
     * Decides the faults for one refund request, drawn as a charge's; {@link FaultPlan#decline()}
     * then means the refund fails, at {@code refundFailRate}.
     */
    FaultPlan rollRefund(Random random) {
        return roll(random, refundFailRate);
    }

    private FaultPlan roll(Random random, double failRate) {
        double rateLimitDraw;
        double serverErrorDraw;
        boolean badGateway;
        double resetDraw;
        double commitThenTimeoutDraw;
        double declineDraw;
        double nonFinalDraw;
        double emptyBodyDraw;
        boolean noContent;
        double conflictDraw;
        synchronized (random) { // keep one request's draws together under concurrency
            rateLimitDraw = random.nextDouble();
            serverErrorDraw = random.nextDouble();
            badGateway = random.nextBoolean();
            resetDraw = random.nextDouble();
            commitThenTimeoutDraw = random.nextDouble();
            declineDraw = random.nextDouble();
            nonFinalDraw = random.nextDouble();
            emptyBodyDraw = random.nextDouble();
            noContent = random.nextBoolean();
            conflictDraw = random.nextDouble();
        }
        int serverErrorStatus = serverErrorDraw < serverErrorRate ? (badGateway ? 502 : 500) : 0;
        int emptyBodyStatus = emptyBodyDraw < emptyBodyRate ? (noContent ? 204 : 200) : 0;
        return new FaultPlan(
                outage,
                latencyMs,
                rateLimitDraw < rateLimitRate,
                serverErrorStatus,
                resetDraw < resetRate,
                commitThenTimeoutDraw < commitThenTimeoutRate,
                declineDraw < failRate,
                nonFinalDraw < nonFinalRate,
                emptyBodyStatus,
                conflictDraw < conflictRate);
    }

    /**
     * Decides the faults for one lookup request, from the lookups' own dice (so the number of
     * lookups, which depends on timing, never shifts the charges' faults).
     */
    LookupPlan rollLookup(Random random) {
        double malformedDraw;
        int shape;
        synchronized (random) {
            malformedDraw = random.nextDouble();
            shape = random.nextInt(LookupPlan.MALFORMED_SHAPES.size());
        }
        return new LookupPlan(outage, latencyMs, lookupLagMs,
                malformedDraw < malformedLookupRate ? LookupPlan.MALFORMED_SHAPES.get(shape) : null);
    }

    ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("latencyMs", latencyMs);
        node.put("serverErrorRate", serverErrorRate);
        node.put("rateLimitRate", rateLimitRate);
        node.put("retryAfterSeconds", retryAfterSeconds);
        node.put("resetRate", resetRate);
        node.put("commitThenTimeoutRate", commitThenTimeoutRate);
        node.put("commitThenTimeoutMs", commitThenTimeoutMs);
        node.put("declineRate", declineRate);
        node.put("outage", outage);
        node.put("webhookDuplicateRate", webhookDuplicateRate);
        node.put("webhookReorder", webhookReorder);
        node.put("nonFinalRate", nonFinalRate);
        node.put("emptyBodyRate", emptyBodyRate);
        node.put("serverErrorRetryAfterSeconds", serverErrorRetryAfterSeconds);
        node.put("conflictRate", conflictRate);
        node.put("lookupLagMs", lookupLagMs);
        node.put("malformedLookupRate", malformedLookupRate);
        node.put("stripeLatencyMs", stripeLatencyMs);
        node.put("refundFailRate", refundFailRate);
        node.put("refundSettleMs", refundSettleMs);
        return node;
    }

    /**
     * These settings overlaid with a partial JSON object; unknown fields are rejected so a typo in
     * a test does not silently leave the provider healthy.
     *
     * @throws IllegalArgumentException naming the offending field
     */
    Faults merge(JsonNode patch, ObjectMapper json) {
        ObjectNode merged = overlay(toJson(json), patch, FIELDS);
        return new Faults(
                wholeNumber(merged, "latencyMs"),
                number(merged, "serverErrorRate"),
                number(merged, "rateLimitRate"),
                wholeNumber(merged, "retryAfterSeconds"),
                number(merged, "resetRate"),
                number(merged, "commitThenTimeoutRate"),
                wholeNumber(merged, "commitThenTimeoutMs"),
                number(merged, "declineRate"),
                bool(merged, "outage"),
                number(merged, "webhookDuplicateRate"),
                bool(merged, "webhookReorder"),
                number(merged, "nonFinalRate"),
                number(merged, "emptyBodyRate"),
                wholeNumber(merged, "serverErrorRetryAfterSeconds"),
                number(merged, "conflictRate"),
                wholeNumber(merged, "lookupLagMs"),
                number(merged, "malformedLookupRate"),
                wholeNumber(merged, "stripeLatencyMs"),
                number(merged, "refundFailRate"),
                wholeNumber(merged, "refundSettleMs"));
    }

    public Faults withLatencyMs(long value) {
        return with("latencyMs", LongNode.valueOf(value));
    }

    public Faults withServerErrorRate(double value) {
        return with("serverErrorRate", DoubleNode.valueOf(value));
    }

    public Faults withRateLimitRate(double value) {
        return with("rateLimitRate", DoubleNode.valueOf(value));
    }

    public Faults withRetryAfterSeconds(long value) {
        return with("retryAfterSeconds", LongNode.valueOf(value));
    }

    public Faults withResetRate(double value) {
        return with("resetRate", DoubleNode.valueOf(value));
    }

    public Faults withCommitThenTimeoutRate(double value) {
        return with("commitThenTimeoutRate", DoubleNode.valueOf(value));
    }

    public Faults withCommitThenTimeoutMs(long value) {
        return with("commitThenTimeoutMs", LongNode.valueOf(value));
    }

    public Faults withDeclineRate(double value) {
        return with("declineRate", DoubleNode.valueOf(value));
    }

    public Faults withOutage(boolean value) {
        return with("outage", BooleanNode.valueOf(value));
    }

    public Faults withWebhookDuplicateRate(double value) {
        return with("webhookDuplicateRate", DoubleNode.valueOf(value));
    }

    public Faults withWebhookReorder(boolean value) {
        return with("webhookReorder", BooleanNode.valueOf(value));
    }

    public Faults withNonFinalRate(double value) {
        return with("nonFinalRate", DoubleNode.valueOf(value));
    }

    public Faults withEmptyBodyRate(double value) {
        return with("emptyBodyRate", DoubleNode.valueOf(value));
    }

    public Faults withServerErrorRetryAfterSeconds(long value) {
        return with("serverErrorRetryAfterSeconds", LongNode.valueOf(value));
    }

    public Faults withConflictRate(double value) {
        return with("conflictRate", DoubleNode.valueOf(value));
    }

    public Faults withLookupLagMs(long value) {
        return with("lookupLagMs", LongNode.valueOf(value));
    }

    public Faults withMalformedLookupRate(double value) {
        return with("malformedLookupRate", DoubleNode.valueOf(value));
    }

    public Faults withStripeLatencyMs(long value) {
        return with("stripeLatencyMs", LongNode.valueOf(value));
    }

    public Faults withRefundFailRate(double value) {
        return with("refundFailRate", DoubleNode.valueOf(value));
    }

    public Faults withRefundSettleMs(long value) {
        return with("refundSettleMs", LongNode.valueOf(value));
    }

    /** One field changed, validated like a {@code POST /_sim/faults}: one path for every setter. */
    private Faults with(String field, JsonNode value) {
        return merge(JSON.createObjectNode().set(field, value), JSON);
    }
}
