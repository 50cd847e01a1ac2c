package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The seeded refunds: which orders, how, and what a refund request sends and settles on. */
class RefundWorkloadTest {

    @Test
    void aQuarterOfTheOrdersIsRefundedTheSameWayForASeed() {
        List<Workload.Plan> orders = Workload.generate(2000, 7, false, 0);
        Map<Integer, RefundWorkload.Plan> refunds = RefundWorkload.generate(orders, 7);
        assertEquals(refunds, RefundWorkload.generate(orders, 7));
        assertTrue(refunds.size() > 440 && refunds.size() < 560, "about 25 %: " + refunds.size());
        Map<RefundWorkload.Kind, Integer> kinds = new EnumMap<>(RefundWorkload.Kind.class);
        for (RefundWorkload.Plan p : refunds.values()) {
            kinds.merge(p.kind(), 1, Integer::sum);
            long paid = orders.get(p.order()).amount();
            long asked = p.requests().stream().mapToLong(q -> q.amount() == null ? 0 : q.amount()).sum();
            assertEquals(p.kind() == RefundWorkload.Kind.CONCURRENT, p.together());
            assertEquals(p.kind() == RefundWorkload.Kind.CONCURRENT ? 3 : p.kind() == RefundWorkload.Kind.TWO_KEYS
                    || p.kind() == RefundWorkload.Kind.REST ? 2 : 1, p.requests().size());
            assertEquals(p.kind() == RefundWorkload.Kind.CONCURRENT, asked > paid, "only the concurrent three ask "
                    + "for more than was paid: " + p);
            assertEquals(p.kind() == RefundWorkload.Kind.REST, p.requests().stream().anyMatch(q -> q.amount() == null));
            assertEquals(p.kind() == RefundWorkload.Kind.RETRY ? 2 : 1, p.requests().get(0).submitters());
            assertEquals(p.requests().size(), p.requests().stream().map(RefundWorkload.Request::key).distinct().count());
        }
        assertEquals(RefundWorkload.Kind.values().length, kinds.size(), "every kind: " + kinds);
    }

    @Test
    void ordersPaidThroughStripeAreNotRefundedAndTheOthersKeepTheirRefunds() {
        List<Workload.Plan> sim = Workload.generate(400, 7, false, 0);
        List<Workload.Plan> mixed = Workload.onStripeAccount(sim, DrillOptions.SECOND_ACCOUNT_TENANT);
        Map<Integer, RefundWorkload.Plan> all = RefundWorkload.generate(sim, 7);
        Map<Integer, RefundWorkload.Plan> some = RefundWorkload.generate(mixed, 7);
        assertTrue(RefundWorkload.generate(Workload.generate(400, 7, true, 0), 7).isEmpty());
        assertTrue(some.size() < all.size() && !some.isEmpty());
        some.forEach((i, p) -> {
            assertNull(mixed.get(i).paymentMethod());
            assertEquals(all.get(i), p);
        });
    }

    @Test
    void aRequestAsksForAnAmountOrEverythingLeft() {
        RefundWorkload.Request part = new RefundWorkload.Request(3, 0, "k", 1200L, 1, 0);
        RefundWorkload.Request rest = new RefundWorkload.Request(3, 1, "k2", null, 1, 0);
        assertTrue(part.body("order_3").startsWith("{\"amount\":1200,\"reason\":"), part.body("order_3"));
        assertFalse(rest.body("order_3").contains("amount"), rest.body("order_3"));
        assertTrue(rest.body("order_3").contains("\"metadata\":{\"order\":\"order_3\""), rest.body("order_3"));
    }

    @Test
    void anAnswerIsSettledWhenAskingAgainTeachesNothing() {
        assertTrue(answer("POST", 201, null, "succeeded").settled());
        assertTrue(answer("POST", 402, null, "failed").settled());
        assertTrue(answer("POST", 409, "refund-exceeds-charge", null).settled());
        assertTrue(answer("GET", 200, null, "needs_review").settled());
        assertFalse(answer("POST", 409, GoodClient.REQUEST_IN_FLIGHT, null).settled());
        assertFalse(answer("POST", 503, "provider-unavailable", null).settled());
        assertFalse(answer("POST", 0, null, null).settled());
        RefundRecord.Answer pending = answer("POST", 202, null, "pending");
        assertTrue(pending.pending() && !pending.settled() && pending.accepted());
        assertTrue(answer("GET", 200, null, "pending").pending());
        assertFalse(answer("GET", 200, null, "succeeded").accepted(), "a poll accepts nothing");
        assertEquals("409 refund-exceeds-charge", answer("POST", 409, "refund-exceeds-charge", null).outcome());
        assertEquals("timeout", answer("POST", 0, null, null).outcome());
    }

    private static RefundRecord.Answer answer(String method, int status, String problem, String refundStatus) {
        return new RefundRecord.Answer(method, status, problem, refundStatus == null ? null : "ref_1", refundStatus,
                refundStatus == null ? null : 100L, false, 0);
    }
}
