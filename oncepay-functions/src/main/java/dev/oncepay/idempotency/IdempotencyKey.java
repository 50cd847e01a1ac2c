package dev.oncepay.idempotency;

import dev.oncepay.contract.Table;

/**
 * A client's {@code Idempotency-Key}, scoped to its tenant. Stored only as a hash: the raw key
 * may carry whatever the client put in it, and it never needs to be read back.
 */
public record IdempotencyKey(String tenant, String value) {
    public static final int MAX_LENGTH = 255;

    /** {@code null} if the header value is a valid key, else why not. */
    public static String problemWith(String value) {
        if (value == null) {
            return "the Idempotency-Key header is required";
        }
        if (value.isEmpty() || value.length() > MAX_LENGTH) {
            return "the Idempotency-Key header must be 1 to " + MAX_LENGTH + " characters";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return "the Idempotency-Key header must be printable ASCII";
            }
        }
        if (value.isBlank()) {
            return "the Idempotency-Key header must not be blank";
        }
        return null;
    }

    /**
     * The scope of the operator API's keys, in place of a tenant: one no merchant can have (the
     * tenant resolver refuses spaces), so an operator's key never meets a merchant's.
     */
    public static final String OPERATOR_SCOPE = "operator api";

    /** The item's partition key: tenant and key hashed together, so tenants never collide. */
    public String storageId() {
        return Table.keyItemId(tenant, value);
    }
}
