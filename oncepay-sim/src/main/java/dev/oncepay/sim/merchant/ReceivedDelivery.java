package dev.oncepay.sim.merchant;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * One verified delivery and what the merchant answered it.
 *
 * @param objectId the event's {@code data.id}
 * @param status the event's {@code data.status}
 */
public record ReceivedDelivery(String endpoint, String eventId, String type, String objectId, long sequence,
        String status, int answer, Instant at) {

    public boolean acknowledged() {
        return answer >= 200 && answer < 300;
    }

    ObjectNode toJson(ObjectMapper json) {
        return json.createObjectNode()
                .put("endpoint", endpoint)
                .put("eventId", eventId)
                .put("type", type)
                .put("objectId", objectId)
                .put("sequence", sequence)
                .put("status", status)
                .put("answer", answer)
                .put("at", at.toString());
    }
}
