package dev.oncepay.sim.merchant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Set;

/**
 * How the merchant endpoint misbehaves.
 *
 * @param failRate probability of answering {@code failStatus} instead of {@code 200}
 * @param failStatus the failing answer's status (default 500)
 * @param stallRate probability of waiting {@code stallMs} before answering
 * @param stallMs how long a stall (and a dark endpoint) waits
 * @param dark every delivery waits {@code stallMs}, then gets {@code 503}
 * @param redirect every delivery gets {@code 302 Location: /elsewhere}
 */
public record MerchantFaults(double failRate, int failStatus, double stallRate, long stallMs, boolean dark,
        boolean redirect) {

    public static final MerchantFaults NONE = new MerchantFaults(0, 500, 0, 0, false, false);

    private static final Set<String> FIELDS = Set.of("failRate", "failStatus", "stallRate", "stallMs", "dark", "redirect");

    public MerchantFaults {
        if (failRate < 0 || failRate > 1 || stallRate < 0 || stallRate > 1) {
            throw new IllegalArgumentException("failRate and stallRate are probabilities between 0 and 1");
        }
        if (failStatus < 100 || failStatus > 599 || stallMs < 0) {
            throw new IllegalArgumentException("failStatus must be an HTTP status and stallMs not negative");
        }
    }

    public MerchantFaults withFailRate(double value) {
        return new MerchantFaults(value, failStatus, stallRate, stallMs, dark, redirect);
    }

    public MerchantFaults withFailStatus(int value) {
        return new MerchantFaults(failRate, value, stallRate, stallMs, dark, redirect);
    }

    public MerchantFaults withStall(double rate, long ms) {
        return new MerchantFaults(failRate, failStatus, rate, ms, dark, redirect);
    }

    public MerchantFaults withDark(boolean value, long ms) {
        return new MerchantFaults(failRate, failStatus, stallRate, ms, value, redirect);
    }

    public MerchantFaults withRedirect(boolean value) {
        return new MerchantFaults(failRate, failStatus, stallRate, stallMs, dark, value);
    }

    /** These settings with the fields {@code changes} names replaced; an unknown field is refused. */
    public MerchantFaults merge(JsonNode changes) {
        if (changes == null || !changes.isObject()) {
            throw new IllegalArgumentException("faults must be a JSON object");
        }
        for (Iterator<String> names = changes.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new IllegalArgumentException("unknown fault '" + name + "' (known: " + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
            }
        }
        return new MerchantFaults(
                changes.path("failRate").asDouble(failRate),
                changes.path("failStatus").asInt(failStatus),
                changes.path("stallRate").asDouble(stallRate),
                changes.path("stallMs").asLong(stallMs),
                changes.path("dark").asBoolean(dark),
                changes.path("redirect").asBoolean(redirect));
    }

    public ObjectNode toJson(ObjectMapper json) {
        return json.createObjectNode()
                .put("failRate", failRate)
                .put("failStatus", failStatus)
                .put("stallRate", stallRate)
                .put("stallMs", stallMs)
                .put("dark", dark)
                .put("redirect", redirect);
    }
}
