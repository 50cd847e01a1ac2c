package dev.oncepay.events;

import dev.oncepay.payment.MerchantEventType;

import java.net.URI;
import java.util.List;
import java.util.Set;

/**
 * One tenant's endpoint for events.
 *
 * @param secrets its signing secrets, newest first (empty outside event delivery); never in {@link #toString()}
 */
public record MerchantEndpoint(String tenant, String id, URI url, Set<MerchantEventType> types, List<String> secrets) {

    public boolean wants(MerchantEventType type) {
        return types.contains(type);
    }

    @Override
    public String toString() {
        return "MerchantEndpoint[tenant=" + tenant + ", id=" + id + "]";
    }
}
