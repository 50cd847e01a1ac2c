package dev.oncepay.idempotency;

import dev.oncepay.contract.Table;

/**
 * Identifies what was asked: method, path and the canonical body (keys sorted, no insignificant
 * white space), so a reformatted but equal request replays and a different one is rejected.
 */
public record RequestFingerprint(String value) {
    public static RequestFingerprint of(String method, String path, String canonicalBody) {
        return new RequestFingerprint(Table.sha256Hex(method + '\n' + path + '\n' + canonicalBody));
    }
}
