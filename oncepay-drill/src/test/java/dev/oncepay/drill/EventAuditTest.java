package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Table;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The merchant events' verdict from the table's settled objects and what the merchant endpoint holds. */
class EventAuditTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void settledObjectsOfTenantsWithAnEndpointAreExpectedWithTheirLastEventsSequence() {
        List<Map<String, AttributeValue>> items = List.of(
                payment("pay_1", "merchant-a", "SUCCEEDED", "payment.requires_action", null, "payment.succeeded"),
                payment("pay_2", "merchant-b", "PENDING", "payment.requires_action"),
                payment("pay_3", "merchant-x", "FAILED", "payment.failed"),
                payment("pay_4", "merchant-c", "NEEDS_REVIEW", null, "payment.needs_review"),
                refund("re_1", "merchant-a", "SUCCEEDED", null, "refund.succeeded"),
                Map.of(Table.PK, AttributeValue.fromS("key#x"), Table.KIND, AttributeValue.fromS(Table.KIND_KEY)));
        Map<String, EventAudit.Expected> expected = EventAudit.expected(items, Workload.TENANTS);
        assertEquals(List.of("pay_1", "pay_4", "re_1"), List.copyOf(expected.keySet()),
                "settled only, and only tenants with an endpoint");
        assertEquals(new EventAudit.Expected("pay_1", "payment", "merchant-a", "succeeded", 3, 3000),
                expected.get("pay_1"));
        assertEquals("needs_review", expected.get("pay_4").status());
        assertEquals(2, expected.get("pay_4").sequence());
        assertEquals("refund", expected.get("re_1").object());
    }

    @Test
    void aFinalStateTheMerchantDoesNotHoldIsMissingAndNamed() throws Exception {
        Map<String, EventAudit.Expected> expected = Map.of(
                "pay_1", new EventAudit.Expected("pay_1", "payment", "merchant-a", "succeeded", 3, 1000),
                "pay_2", new EventAudit.Expected("pay_2", "payment", "merchant-a", "failed", 2, 1000),
                "pay_3", new EventAudit.Expected("pay_3", "payment", "merchant-b", "succeeded", 2, 1000),
                "re_1", new EventAudit.Expected("re_1", "refund", "merchant-a", "succeeded", 2, 1000));
        JsonNode received = JSON.readTree("""
                {"deliveries":[
                  {"endpoint":"merchant-a","eventId":"evt_pay_1_3","type":"payment.succeeded","objectId":"pay_1","sequence":3,
                   "status":"succeeded","answer":500,"at":"1970-01-01T00:00:01.500Z"},
                  {"endpoint":"merchant-a","eventId":"evt_pay_1_3","type":"payment.succeeded","objectId":"pay_1","sequence":3,
                   "status":"succeeded","answer":200,"at":"1970-01-01T00:00:02Z"},
                  {"endpoint":"merchant-a","eventId":"evt_pay_2_1","type":"payment.requires_action","objectId":"pay_2",
                   "sequence":1,"status":"pending","answer":200,"at":"1970-01-01T00:00:02Z"},
                  {"endpoint":"merchant-b","eventId":"evt_pay_3_2","type":"payment.succeeded","objectId":"pay_3","sequence":2,
                   "status":"succeeded","answer":200,"at":"1970-01-01T00:00:04Z"}],
                 "applied":{"pay_1":{"eventId":"evt_pay_1_3","type":"payment.succeeded","sequence":3,"status":"succeeded"},
                            "pay_2":{"eventId":"evt_pay_2_1","type":"payment.requires_action","sequence":1,"status":"pending"},
                            "pay_3":{"eventId":"evt_pay_3_1","type":"payment.requires_action","sequence":1,"status":"pending"}},
                 "counts":{"received":4,"accepted":3,"rejected":1,"failed":1,"duplicates":0,"stale":0,"outOfOrderApplied":1}}
                """);
        EventAudit.Verdict v = EventAudit.judge(expected, new EventAudit.Drained(received, 1500, null));
        assertFalse(v.ok());
        assertEquals(2, v.missing(), "pay_2 still pending at the merchant, pay_3 behind");
        assertEquals(List.of("pay_2", "pay_3"), v.missingIds());
        assertEquals(1, v.refundsMissing());
        assertEquals(2, v.outOfOrder(), "the endpoint's count, and pay_3 applied below an acknowledged sequence");
        assertEquals(1, v.notHighest());
        assertEquals(1, v.rejected());
        assertEquals(List.of(1000L, 3000L), v.lagsMs().stream().sorted().toList(),
                "from the history entry to the first acknowledged delivery of its event");
        assertTrue(v.lines().startsWith("events missing: 2 (pay_2, pay_3)\nrefund events missing: 1 (re_1)\n"
                + "events out of order applied: 2\nevents with a bad signature: 1"), v.lines());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("EVENT MISSING payment pay_2 of merchant-a: settled"
                + " failed (its last event at sequence 2), the merchant holds pending at sequence 1")), v.details().toString());

        EventAudit.Verdict all = EventAudit.judge(Map.of("pay_1", expected.get("pay_1")), new EventAudit.Drained(
                JSON.readTree(received.toString().replace("\"rejected\":1", "\"rejected\":0")
                        .replace("\"outOfOrderApplied\":1", "\"outOfOrderApplied\":0")
                        .replace("\"objectId\":\"pay_3\",\"sequence\":2", "\"objectId\":\"pay_3\",\"sequence\":1")),
                1500, null));
        assertTrue(all.ok(), all.details().toString());
        assertTrue(all.lines().startsWith("events missing: 0\nrefund events missing: 0\nevents out of order applied: 0\n"
                + "events with a bad signature: 0"), all.lines());
        assertTrue(all.counts().contains("deliveries received 4, acknowledged 3"), all.counts());
        assertEquals(Duration.ofMillis(1500).toMillis(), all.drainMs());
    }

    /** A payment item: its history's entries, each carrying the event type given (or none for null), one second apart. */
    private static Map<String, AttributeValue> payment(String id, String tenant, String status, String... events) {
        return item("payment#" + id, Table.KIND_PAYMENT, tenant, status, events);
    }

    private static Map<String, AttributeValue> refund(String id, String tenant, String status, String... events) {
        return item("refund#" + id, Table.KIND_REFUND, tenant, status, events);
    }

    private static Map<String, AttributeValue> item(String pk, String kind, String tenant, String status, String... events) {
        List<AttributeValue> history = new java.util.ArrayList<>();
        for (int i = 0; i < events.length; i++) {
            Map<String, AttributeValue> entry = new java.util.HashMap<>();
            entry.put(Table.HISTORY_AT, AttributeValue.fromS(java.time.Instant.ofEpochSecond(i + 1).toString()));
            if (events[i] != null) {
                entry.put(Table.HISTORY_EVENT, AttributeValue.fromS(events[i]));
            }
            history.add(AttributeValue.fromM(entry));
        }
        return Map.of(Table.PK, AttributeValue.fromS(pk), Table.KIND, AttributeValue.fromS(kind), Table.TENANT,
                AttributeValue.fromS(tenant), Table.STATUS, AttributeValue.fromS(status), Table.HISTORY,
                AttributeValue.fromL(history));
    }
}
