package dev.oncepay.contract;

import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Short constructors and readers for DynamoDB attribute values. */
public final class Attr {
    private Attr() {
    }

    public static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    public static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    public static String string(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null ? null : v.s();
    }

    public static long number(Map<String, AttributeValue> item, String name, long fallback) {
        AttributeValue v = item.get(name);
        return v == null || v.n() == null ? fallback : Long.parseLong(v.n());
    }

    public static Map<String, AttributeValue> key(String pk) {
        return Map.of(Table.PK, s(pk));
    }
}
