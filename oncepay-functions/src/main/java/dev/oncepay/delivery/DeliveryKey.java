package dev.oncepay.delivery;

import dev.oncepay.contract.Table;

/** Names one delivery record: one event for one endpoint of a tenant. */
public record DeliveryKey(String tenant, String endpoint, String eventId) {

    public String itemId() {
        return Table.deliveryItemId(tenant, endpoint, eventId);
    }
}
