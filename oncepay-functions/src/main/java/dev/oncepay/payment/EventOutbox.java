package dev.oncepay.payment;

import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Where the events of payments and refunds go. A move whose event some endpoint of its tenant
 * wants marks the item's outbox in the same write; right after it, the writer hands the item to
 * {@link #relay}. What the relay does not finish stays marked, and the sweep relays it.
 */
public interface EventOutbox {

    /** Whether an event of {@code type} about one of {@code tenant}'s payments goes anywhere. */
    boolean wanted(String tenant, MerchantEventType type);

    /**
     * Puts the item's unrelayed events on the event queue and clears its outbox marker. Never
     * throws: a failure leaves the marker, which the sweep finds.
     *
     * @param item the whole item as the marked write left it
     */
    void relay(Map<String, AttributeValue> item);
}
