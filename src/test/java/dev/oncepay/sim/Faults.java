package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The simulator's fault settings, as read and written by {@code /_sim/faults}. Rates are
 * probabilities per request in 0..1. {@code commitThenTimeoutMs} is a simulator extension to the
 * design's field list: how long a commit-then-timeout answer is held back.
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
        boolean webhookReorder) {

    private static final Set<String> FIELDS = Set.of(
            "latencyMs", "serverErrorRate", "rateLimitRate", "retryAfterSeconds", "resetRate",
            "commitThenTimeoutRate", "commitThenTimeoutMs", "declineRate", "outage",
            "webhookDuplicateRate", "webhookReorder");

    public Faults {
        requireNonNegative("latencyMs", latencyMs);
        requireNonNegative("retryAfterSeconds", retryAfterSeconds);
        requireNonNegative("commitThenTimeoutMs", commitThenTimeoutMs);
        requireRate("serverErrorRate", serverErrorRate);
        requireRate("rateLimitRate", rateLimitRate);
        requireRate("resetRate", resetRate);
        requireRate("commitThenTimeoutRate", commitThenTimeoutRate);
        requireRate("declineRate", declineRate);
        requireRate("webhookDuplicateRate", webhookDuplicateRate);
    }

    /** A well-behaved provider. */
    public static Faults none() {
        return new Faults(0, 0.0, 0.0, 1, 0.0, 0.0, 30_000, 0.0, false, 0.0, false);
    }

    /**
     * Decides the faults for one charge request. Every fault draws exactly once, in a fixed order,
     * whether or not its rate is set, so with a given seed request N meets the same dice whatever
     * else is configured.
     */
    FaultPlan roll(Random random) {
        double rateLimitDraw;
        double serverErrorDraw;
        boolean badGateway;
        double resetDraw;
        double commitThenTimeoutDraw;
        double declineDraw;
        synchronized (random) { // keep one request's draws together under concurrency
            rateLimitDraw = random.nextDouble();
            serverErrorDraw = random.nextDouble();
            badGateway = random.nextBoolean();
            resetDraw = random.nextDouble();
            commitThenTimeoutDraw = random.nextDouble();
            declineDraw = random.nextDouble();
        }
        int serverErrorStatus = serverErrorDraw < serverErrorRate ? (badGateway ? 502 : 500) : 0;
        return new FaultPlan(
                outage,
                latencyMs,
                rateLimitDraw < rateLimitRate,
                serverErrorStatus,
                resetDraw < resetRate,
                commitThenTimeoutDraw < commitThenTimeoutRate,
                declineDraw < declineRate);
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
        return node;
    }

    /**
     * These settings overlaid with a partial JSON object; unknown fields are rejected so a typo in
     * a test does not silently leave the provider healthy.
     *
     * @throws IllegalArgumentException naming the offending field
     */
    Faults merge(JsonNode patch, ObjectMapper json) {
        if (patch == null || !patch.isObject()) {
            throw new IllegalArgumentException("faults must be a JSON object");
        }
        ObjectNode merged = toJson(json);
        for (Map.Entry<String, JsonNode> field : patch.properties()) {
            if (!FIELDS.contains(field.getKey())) {
                throw new IllegalArgumentException("unknown fault field: " + field.getKey());
            }
            merged.set(field.getKey(), field.getValue());
        }
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
                bool(merged, "webhookReorder"));
    }

    public Faults withLatencyMs(long value) {
        return new Faults(value, serverErrorRate, rateLimitRate, retryAfterSeconds, resetRate,
                commitThenTimeoutRate, commitThenTimeoutMs, declineRate, outage, webhookDuplicateRate, webhookReorder);
    }

    public Faults withServerErrorRate(double value) {
        return new Faults(latencyMs, value, rateLimitRate, retryAfterSeconds, resetRate,
                commitThenTimeoutRate, commitThenTimeoutMs, declineRate, outage, webhookDuplicateRate, webhookReorder);
    }

    public Faults withRateLimitRate(double value) {
        return new Faults(latencyMs, serverErrorRate, value, retryAfterSeconds, resetRate,
                commitThenTimeoutRate, commitThenTimeoutMs, declineRate, outage, webhookDuplicateRate, webhookReorder);
    }

    public Faults withRetryAfterSeconds(long value) {
        return new Faults(latencyMs, serverErrorRate, rateLimitRate, value, resetRate,
                commitThenTimeoutRate, commitThenTimeoutMs, declineRate, outage, webhookDuplicateRate, webhookReorder);
    }

    public Faults withResetRate(double value) {
        return new Faults(latencyMs, serverErrorRate, rateLimitRate, retryAfterSeconds, value,
                commitThenTimeoutRate, commitThenTimeoutMs, declineRate, outage, webhookDuplicateRate, webhookReorder);
    }

    public Faults withCommitThenTimeoutRate(double value) {
        return new Faults(latencyMs, serverErrorRate, rateLimitRate, retryAfterSeconds, resetRate,
                value, commitThenTimeoutMs, declineRate, outage, webhookDuplicateRate, webhookReorder);
    }

    public Faults withCommitThenTimeoutMs(long value) {
        return new Faults(latencyMs, serverErrorRate, rateLimitRate, retryAfterSeconds, resetRate,
                commitThenTimeoutRate, value, declineRate, outage, webhookDuplicateRate, webhookReorder);
    }

    public Faults withDeclineRate(double value) {
        return new Faults(latencyMs, serverErrorRate, rateLimitRate, retryAfterSeconds, resetRate,
                commitThenTimeoutRate, commitThenTimeoutMs, value, outage, webhookDuplicateRate, webhookReorder);
    }

    public Faults withOutage(boolean value) {
        return new Faults(latencyMs, serverErrorRate, rateLimitRate, retryAfterSeconds, resetRate,
                commitThenTimeoutRate, commitThenTimeoutMs, declineRate, value, webhookDuplicateRate, webhookReorder);
    }

    public Faults withWebhookDuplicateRate(double value) {
        return new Faults(latencyMs, serverErrorRate, rateLimitRate, retryAfterSeconds, resetRate,
                commitThenTimeoutRate, commitThenTimeoutMs, declineRate, outage, value, webhookReorder);
    }

    public Faults withWebhookReorder(boolean value) {
        return new Faults(latencyMs, serverErrorRate, rateLimitRate, retryAfterSeconds, resetRate,
                commitThenTimeoutRate, commitThenTimeoutMs, declineRate, outage, webhookDuplicateRate, value);
    }

    private static void requireRate(String name, double value) {
        if (!(value >= 0.0 && value <= 1.0)) { // also rejects NaN
            throw new IllegalArgumentException(name + " must be between 0 and 1, was " + value);
        }
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
    }

    private static double number(JsonNode node, String name) {
        JsonNode value = node.get(name);
        if (!value.isNumber()) {
            throw new IllegalArgumentException(name + " must be a number");
        }
        return value.doubleValue();
    }

    private static long wholeNumber(JsonNode node, String name) {
        JsonNode value = node.get(name);
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(name + " must be a whole number");
        }
        return value.longValue();
    }

    private static boolean bool(JsonNode node, String name) {
        JsonNode value = node.get(name);
        if (!value.isBoolean()) {
            throw new IllegalArgumentException(name + " must be true or false");
        }
        return value.booleanValue();
    }
}
