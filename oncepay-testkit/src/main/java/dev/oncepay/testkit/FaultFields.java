package dev.oncepay.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Set;

/**
 * How fault settings are read from JSON ({@code /_sim/faults}, {@code /_store/faults}): a partial
 * object overlaid on the current settings, unknown fields and ill-typed or out-of-range values
 * rejected, so a typo never silently leaves a simulated dependency healthy.
 */
public final class FaultFields {
    private FaultFields() {
    }

    /**
     * {@code current} with the fields of {@code patch} set over it.
     *
     * @throws IllegalArgumentException if {@code patch} is no object or names a field not in {@code fields}
     */
    public static ObjectNode overlay(ObjectNode current, JsonNode patch, Set<String> fields) {
        if (patch == null || !patch.isObject()) {
            throw new IllegalArgumentException("faults must be a JSON object");
        }
        for (Map.Entry<String, JsonNode> field : patch.properties()) {
            if (!fields.contains(field.getKey())) {
                throw new IllegalArgumentException("unknown fault field: " + field.getKey());
            }
            current.set(field.getKey(), field.getValue());
        }
        return current;
    }

    public static void requireRate(String name, double value) {
        if (!(value >= 0.0 && value <= 1.0)) { // also rejects NaN
            throw new IllegalArgumentException(name + " must be between 0 and 1, was " + value);
        }
    }

    public static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
    }

    public static double number(JsonNode node, String name) {
        JsonNode value = node.get(name);
        if (!value.isNumber()) {
            throw new IllegalArgumentException(name + " must be a number");
        }
        return value.doubleValue();
    }

    public static long wholeNumber(JsonNode node, String name) {
        JsonNode value = node.get(name);
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(name + " must be a whole number");
        }
        return value.longValue();
    }

    public static boolean bool(JsonNode node, String name) {
        JsonNode value = node.get(name);
        if (!value.isBoolean()) {
            throw new IllegalArgumentException(name + " must be true or false");
        }
        return value.booleanValue();
    }
}
