package dev.oncepay.api;

import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.validation.InvalidRequestException;

/** The {@code Idempotency-Key} header of a request that must carry one, checked by the key's own rules. */
final class IdempotencyKeyHeader {
    private IdempotencyKeyHeader() {
    }

    /** @throws InvalidRequestException naming {@code Idempotency-Key}: missing or malformed */
    static String of(HttpApiEvent event) {
        String key = event.header("Idempotency-Key");
        String keyProblem = IdempotencyKey.problemWith(key);
        if (keyProblem != null) {
            throw new InvalidRequestException("Idempotency-Key", keyProblem);
        }
        return key;
    }
}
