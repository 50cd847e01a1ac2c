package dev.oncepay.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.MerchantEventType;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.RefundStatus;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads the events out of a payment or refund item: each history entry that carries an event
 * type is one, numbered by its position. The body is built from that entry and the item's fixed
 * facts only, so every delivery of an event, a redelivery weeks later included, carries the same bytes.
 */
@ApplicationScoped
public class MerchantEvents {
    private static final String PAYMENT_PREFIX = "payment#";
    private static final String REFUND_PREFIX = "refund#";

    private final ObjectMapper json;

    public MerchantEvents(ObjectMapper json) {
        this.json = json;
    }

    /** The item's events with a sequence above {@code after}, oldest first. */
    public List<MerchantEvent> after(Map<String, AttributeValue> item, long after) {
        AttributeValue history = item.get(Table.HISTORY);
        if (history == null || !history.hasL()) {
            return List.of();
        }
        List<MerchantEvent> events = new ArrayList<>();
        List<AttributeValue> entries = history.l();
        for (int i = (int) Math.max(0, after); i < entries.size(); i++) {
            event(item, entries.get(i).m(), i + 1L).ifPresent(events::add);
        }
        return events;
    }

    /** Every event of the item. */
    public List<MerchantEvent> all(Map<String, AttributeValue> item) {
        return after(item, 0);
    }

    /** The item's event at {@code sequence}, if that history entry is one. */
    public Optional<MerchantEvent> at(Map<String, AttributeValue> item, long sequence) {
        AttributeValue history = item.get(Table.HISTORY);
        if (history == null || !history.hasL() || sequence < 1 || sequence > history.l().size()) {
            return Optional.empty();
        }
        return event(item, history.l().get((int) sequence - 1).m(), sequence);
    }

    /** The key of the item an event id names ({@code evt_<objectId>_<sequence>}); empty if it names none. */
    public static Optional<EventAddress> address(String eventId) {
        if (eventId == null || !eventId.startsWith("evt_")) {
            return Optional.empty();
        }
        int last = eventId.lastIndexOf('_');
        String objectId = eventId.substring(4, Math.max(4, last));
        try {
            long sequence = Long.parseLong(eventId.substring(last + 1));
            String pk = objectId.startsWith("pay_") ? PAYMENT_PREFIX + objectId
                    : objectId.startsWith("ref_") ? REFUND_PREFIX + objectId : null;
            return pk == null || sequence < 1 ? Optional.empty() : Optional.of(new EventAddress(pk, objectId, sequence));
        } catch (NumberFormatException | IndexOutOfBoundsException notAnEvent) {
            return Optional.empty();
        }
    }

    /** Where an event lives: its item's key, its object and its sequence. */
    public record EventAddress(String pk, String objectId, long sequence) {
    }

    private Optional<MerchantEvent> event(Map<String, AttributeValue> item, Map<String, AttributeValue> entry, long sequence) {
        Optional<MerchantEventType> type = Optional.ofNullable(Attr.string(entry, Table.HISTORY_EVENT))
                .flatMap(MerchantEventType::ofWireName);
        if (type.isEmpty()) {
            return Optional.empty();
        }
        String pk = Attr.string(item, Table.PK);
        boolean refund = pk.startsWith(REFUND_PREFIX);
        String objectId = pk.substring(refund ? REFUND_PREFIX.length() : PAYMENT_PREFIX.length());
        String paymentId = refund ? Attr.string(item, Table.PAYMENT_ID) : objectId;
        String tenant = Attr.string(item, Table.TENANT);
        Instant at = Instant.parse(Attr.string(entry, Table.HISTORY_AT));
        String id = MerchantEvent.idOf(objectId, sequence);
        String to = Attr.string(entry, Table.HISTORY_TO);

        Map<String, Object> data = new LinkedHashMap<>();
        if (refund) {
            data.put("object", "refund");
            data.put("id", objectId);
            data.put("paymentId", paymentId);
            data.put("status", RefundStatus.valueOf(to).apiName());
            data.put("amount", Attr.number(item, Table.AMOUNT, 0));
            data.put("currency", Attr.string(item, Table.CURRENCY));
            data.put("providerRefundId", Attr.string(entry, Table.PROVIDER_REFUND_ID));
            data.put("failureCode", Attr.string(entry, Table.FAILURE_CODE));
        } else {
            data.put("object", "payment");
            data.put("id", objectId);
            data.put("status", PaymentStatus.valueOf(to).apiName());
            data.put("amount", Attr.number(item, Table.AMOUNT, 0));
            data.put("currency", Attr.string(item, Table.CURRENCY));
            data.put("reference", Attr.string(item, Table.REFERENCE));
            data.put("providerPaymentId", Attr.string(entry, Table.HISTORY_PROVIDER_PAYMENT_ID));
            data.put("declineCode", Attr.string(entry, Table.HISTORY_DECLINE_CODE));
        }
        data.put("reason", Attr.string(entry, Table.HISTORY_REASON));
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("id", id);
        event.put("type", type.get().wireName());
        event.put("createdAt", at.toString());
        event.put("sequence", sequence);
        event.put("tenant", tenant);
        event.put("data", data);
        try {
            return Optional.of(new MerchantEvent(id, type.get(), tenant, objectId, paymentId, sequence, at,
                    json.writeValueAsString(event)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
