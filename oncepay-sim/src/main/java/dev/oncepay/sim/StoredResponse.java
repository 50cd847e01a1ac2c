package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * The answer first given for an idempotency key, replayed byte for byte on a retry.
 *
 * @param request the parsed request body; a retry must carry an equal one (field order ignored)
 */
record StoredResponse(int status, String body, JsonNode request, Instant storedAt) {
}
