package dev.oncepay.sim.merchant;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the merchant endpoint received since its start or last reset.
 *
 * @param received every {@code POST /merchant/{endpoint}}, signed or not
 * @param accepted verified and answered {@code 2xx}
 * @param rejected refused with {@code 401}: no valid signature
 * @param failed verified but answered otherwise (a fault, a redirect, an unreadable event)
 * @param duplicates accepted with an event id accepted before
 * @param stale accepted with a new event id but a sequence not above the one applied for its object
 * @param outOfOrderApplied applied events whose status went from settled ({@code succeeded|failed}) back to {@code pending}
 */
public record MerchantCounts(long received, long accepted, long rejected, long failed, long duplicates, long stale,
        long outOfOrderApplied) {

    ObjectNode toJson(ObjectMapper json) {
        return json.createObjectNode()
                .put("received", received)
                .put("accepted", accepted)
                .put("rejected", rejected)
                .put("failed", failed)
                .put("duplicates", duplicates)
                .put("stale", stale)
                .put("outOfOrderApplied", outOfOrderApplied);
    }
}
