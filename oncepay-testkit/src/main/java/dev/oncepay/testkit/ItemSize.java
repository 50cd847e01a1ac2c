package dev.oncepay.testkit;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * An item's size as DynamoDB bills it (developer guide, "DynamoDB item sizes and formats",
 * CapacityUnitCalculations.html): attribute names plus values; a string its UTF-8 bytes, a number
 * one byte per two significant digits plus one, a binary its raw bytes, a boolean or null one
 * byte, a list or map 3 bytes plus its elements and 1 byte per element. A write request unit
 * covers 1 KB of the item written, a strongly consistent read request unit 4 KB read.
 */
public final class ItemSize {
    private ItemSize() {
    }

    /** Bytes of {@code item} (top-level attribute names and values). */
    public static int bytes(Map<String, AttributeValue> item) {
        int size = 0;
        for (Map.Entry<String, AttributeValue> attribute : item.entrySet()) {
            size += utf8(attribute.getKey()) + value(attribute.getValue());
        }
        return size;
    }

    /** Bytes of the entry that an index holding {@code attributes} (its keys, the table's key, its projection) stores for {@code item}. */
    public static int indexEntryBytes(Map<String, AttributeValue> item, Collection<String> attributes) {
        int size = 0;
        for (String name : attributes) {
            AttributeValue value = item.get(name);
            if (value != null) {
                size += utf8(name) + value(value);
            }
        }
        return size;
    }

    /** Write request units of writing {@code bytes}: 1 per started KB, at least 1. */
    public static int writeUnits(int bytes) {
        return Math.max(1, (bytes + 1023) / 1024);
    }

    /** Read request units of a strongly consistent read of {@code bytes}: 1 per started 4 KB, at least 1. */
    public static int consistentReadUnits(int bytes) {
        return Math.max(1, (bytes + 4095) / 4096);
    }

    private static int value(AttributeValue v) {
        if (v.s() != null) {
            return utf8(v.s());
        }
        if (v.n() != null) {
            return number(v.n());
        }
        if (v.b() != null) {
            return v.b().asByteArray().length;
        }
        if (v.bool() != null || v.nul() != null) {
            return 1;
        }
        if (v.hasM()) {
            int size = 3;
            for (Map.Entry<String, AttributeValue> entry : v.m().entrySet()) {
                size += utf8(entry.getKey()) + value(entry.getValue()) + 1;
            }
            return size;
        }
        if (v.hasL()) {
            int size = 3;
            for (AttributeValue element : v.l()) {
                size += value(element) + 1;
            }
            return size;
        }
        if (v.hasSs()) {
            return v.ss().stream().mapToInt(ItemSize::utf8).sum();
        }
        if (v.hasNs()) {
            return v.ns().stream().mapToInt(ItemSize::number).sum();
        }
        if (v.hasBs()) {
            return v.bs().stream().mapToInt(b -> b.asByteArray().length).sum();
        }
        throw new IllegalArgumentException("an attribute value of no known type: " + v);
    }

    /** Leading and trailing zeros trimmed, then one byte per two significant digits, plus one. */
    private static int number(String n) {
        String digits = new BigDecimal(n).abs().stripTrailingZeros().unscaledValue().toString();
        int significant = digits.equals("0") ? 1 : digits.length();
        return (significant + 1) / 2 + 1;
    }

    private static int utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
