package dev.oncepay.sim.merchant;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The event a merchant last applied for one payment or refund: the highest sequence it acknowledged. */
public record AppliedEvent(String eventId, String type, long sequence, String status) {

    ObjectNode toJson(ObjectMapper json) {
        return json.createObjectNode().put("eventId", eventId).put("type", type).put("sequence", sequence)
                .put("status", status);
    }
}
