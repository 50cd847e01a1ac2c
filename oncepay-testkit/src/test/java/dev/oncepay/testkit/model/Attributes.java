package dev.oncepay.testkit.model;

import dev.oncepay.contract.Table;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Short attribute values and keys for the model's tests. */
final class Attributes {
    private Attributes() {
    }

    static Map<String, AttributeValue> key(String pk) {
        return Map.of(Table.PK, s(pk));
    }

    static AttributeValue s(String s) {
        return AttributeValue.fromS(s);
    }

    static AttributeValue n(long n) {
        return AttributeValue.fromN(Long.toString(n));
    }
}
