package dev.oncepay.testkit;

import static dev.oncepay.testkit.FaultFields.bool;
import static dev.oncepay.testkit.FaultFields.number;
import static dev.oncepay.testkit.FaultFields.overlay;
import static dev.oncepay.testkit.FaultFields.requireNonNegative;
import static dev.oncepay.testkit.FaultFields.requireRate;
import static dev.oncepay.testkit.FaultFields.wholeNumber;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * The store fault settings of {@link StoreFaultProxy}, as read and written by
 * {@code /_store/faults}. Rates are probabilities per data request (items, queries, scans, batches
 * and transactions; never table administration) in 0..1. {@code outage} fails every data request
 * until turned off.
 */
public record StoreFaults(
        long latencyMs,
        double throttleRate,
        double serverErrorRate,
        double stallRate,
        long stallMs,
        double lostAnswerRate,
        boolean outage) {

    /** Longer than the SDK's attempt timeout (application.properties), so a stall is a timeout. */
    public static final long DEFAULT_STALL_MS = 5_000;

    private static final Set<String> FIELDS = Set.of(
            "latencyMs", "throttleRate", "serverErrorRate", "stallRate", "stallMs", "lostAnswerRate", "outage");

    public StoreFaults {
        requireNonNegative("latencyMs", latencyMs);
        requireNonNegative("stallMs", stallMs);
        requireRate("throttleRate", throttleRate);
        requireRate("serverErrorRate", serverErrorRate);
        requireRate("stallRate", stallRate);
        requireRate("lostAnswerRate", lostAnswerRate);
    }

    /** A healthy store. */
    public static StoreFaults none() {
        return new StoreFaults(0, 0.0, 0.0, 0.0, DEFAULT_STALL_MS, 0.0, false);
    }

    public StoreFaults withLatencyMs(long value) {
        return new StoreFaults(value, throttleRate, serverErrorRate, stallRate, stallMs, lostAnswerRate, outage);
    }

    public StoreFaults withThrottleRate(double value) {
        return new StoreFaults(latencyMs, value, serverErrorRate, stallRate, stallMs, lostAnswerRate, outage);
    }

    public StoreFaults withServerErrorRate(double value) {
        return new StoreFaults(latencyMs, throttleRate, value, stallRate, stallMs, lostAnswerRate, outage);
    }

    public StoreFaults withStallRate(double value) {
        return new StoreFaults(latencyMs, throttleRate, serverErrorRate, value, stallMs, lostAnswerRate, outage);
    }

    public StoreFaults withStallMs(long value) {
        return new StoreFaults(latencyMs, throttleRate, serverErrorRate, stallRate, value, lostAnswerRate, outage);
    }

    public StoreFaults withLostAnswerRate(double value) {
        return new StoreFaults(latencyMs, throttleRate, serverErrorRate, stallRate, stallMs, value, outage);
    }

    public StoreFaults withOutage(boolean value) {
        return new StoreFaults(latencyMs, throttleRate, serverErrorRate, stallRate, stallMs, lostAnswerRate, value);
    }

    public ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("latencyMs", latencyMs);
        node.put("throttleRate", throttleRate);
        node.put("serverErrorRate", serverErrorRate);
        node.put("stallRate", stallRate);
        node.put("stallMs", stallMs);
        node.put("lostAnswerRate", lostAnswerRate);
        node.put("outage", outage);
        return node;
    }

    /**
     * These settings overlaid with a partial JSON object. Unknown fields are rejected, so a typo
     * does not silently leave the store healthy.
     *
     * @throws IllegalArgumentException naming the offending field; nothing changes then
     */
    public StoreFaults merge(JsonNode patch, ObjectMapper json) {
        ObjectNode merged = overlay(toJson(json), patch, FIELDS);
        return new StoreFaults(
                wholeNumber(merged, "latencyMs"),
                number(merged, "throttleRate"),
                number(merged, "serverErrorRate"),
                number(merged, "stallRate"),
                wholeNumber(merged, "stallMs"),
                number(merged, "lostAnswerRate"),
                bool(merged, "outage"));
    }
}
