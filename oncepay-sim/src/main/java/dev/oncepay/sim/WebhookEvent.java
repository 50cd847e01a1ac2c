package dev.oncepay.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * A provider event about a charge. Tests may build arbitrary ones (e.g. a {@code charge.failed}
 * for a charge that succeeded) and send them with {@link PspSimulator#sendWebhook(WebhookEvent)}.
 *
 * @param status {@code succeeded} or {@code failed} (a declined charge is reported as failed)
 */
public record WebhookEvent(
        String id,
        String type,
        long created,
        String chargeId,
        String reference,
        String status,
        long amount,
        String currency) {

    public static final String SUCCEEDED = "charge.succeeded";
    public static final String FAILED = "charge.failed";

    /** The event the provider emits after executing {@code charge}. */
    static WebhookEvent forCharge(Charge charge) {
        return of(charge.declined() ? FAILED : SUCCEEDED, charge);
    }

    /** An event of any type about {@code charge}; the status follows the type where it can. */
    static WebhookEvent of(String type, Charge charge) {
        String status = switch (type) {
            case SUCCEEDED -> "succeeded";
            case FAILED -> "failed";
            default -> charge.declined() ? "failed" : "succeeded";
        };
        return new WebhookEvent(newId(), type, Instant.now().getEpochSecond(), charge.id(),
                charge.reference(), status, charge.amount(), charge.currency());
    }

    static String newId() {
        return "evt_" + RandomIds.next();
    }

    String toJson(ObjectMapper json) {
        ObjectNode data = json.createObjectNode();
        data.put("chargeId", chargeId);
        data.put("reference", reference);
        data.put("status", status);
        data.put("amount", amount);
        data.put("currency", currency);
        return envelope(json, id, type, created, data);
    }

    /** The generic API's event shape {@code {"id","type","created","data"}} around any object. */
    static String envelope(ObjectMapper json, String id, String type, long created, ObjectNode data) {
        ObjectNode root = json.createObjectNode();
        root.put("id", id);
        root.put("type", type);
        root.put("created", created);
        root.set("data", data);
        try {
            return json.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
