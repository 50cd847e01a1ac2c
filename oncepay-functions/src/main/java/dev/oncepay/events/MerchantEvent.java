package dev.oncepay.events;

import dev.oncepay.payment.MerchantEventType;
import java.time.Instant;

/**
 * One event of a payment or refund, as every delivery carries it.
 *
 * @param objectId the payment or refund it is about
 * @param paymentId the payment itself, or the refunded one
 * @param sequence the position of its history entry: higher is later, per object
 * @param body the JSON an endpoint receives, the same on every delivery
 */
public record MerchantEvent(String id, MerchantEventType type, String tenant, String objectId, String paymentId,
        long sequence, Instant at, String body) {

    /** {@code evt_<objectId>_<sequence>}: stable, so a merchant drops a delivery it has seen by its id. */
    public static String idOf(String objectId, long sequence) {
        return "evt_" + objectId + "_" + sequence;
    }
}
