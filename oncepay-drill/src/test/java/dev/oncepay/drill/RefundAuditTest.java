package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The refunds' verdict on made-up evidence: a ledger, oncepay's view of its payments' refunds and
 * the clients' answers, built in memory. Each of over-refunds, double refunds and lost refunds
 * counts its violation and stays 0 on a clean set. (The drill shows it on a real run.)
 */
class RefundAuditTest {
    private static final long PAID = 9000;

    private final Map<String, RefundAudit.Charge> charges = new HashMap<>();
    private final List<RefundAudit.LedgerRefund> ledger = new ArrayList<>();
    private final Map<String, List<RefundAudit.Seen>> view = new HashMap<>();
    private final List<RefundRecord> records = new ArrayList<>();

    /** Payment {@code pay_<n>} of order n, charged {@link #PAID} as {@code ch_<n>}. */
    private static String payment(int n) {
        return "pay_" + n;
    }

    private void charged(int n) {
        charges.put("ch_" + n, new RefundAudit.Charge("ch_" + n, payment(n), PAID));
        view.putIfAbsent(payment(n), new ArrayList<>());
    }

    /** A refund request of order n under its own key, sent for payment {@code pay_<n>}. */
    private RefundRecord asked(int n, int index, Long amount) {
        Workload.Plan order = new Workload.Plan(n, "merchant-a", "key-" + n, PAID, "EUR", "order_" + n,
                Workload.Behaviour.NORMAL, 0, false, null, null, Workload.AtPrompt.NONE, false);
        RefundRecord r = new RefundRecord(order, new RefundWorkload.Request(n, index, "key-" + n + "-refund-" + index,
                amount, 1, 0));
        r.paymentId = payment(n);
        records.add(r);
        return r;
    }

    private static void answered(RefundRecord r, int status, String refundId, String refundStatus, long amount) {
        r.answered(0, new RefundRecord.Answer("POST", status, null, refundId, refundStatus, amount, false, 0));
    }

    /** At the provider: refund {@code re_<id>} of order n's charge. */
    private void atProvider(int n, String refundId, long amount, String status) {
        ledger.add(new RefundAudit.LedgerRefund("re_" + refundId + "_" + ledger.size(), "ch_" + n, amount, status,
                refundId));
    }

    /** In oncepay: the refund on its payment. */
    private void inOncepay(int n, String refundId, String status, long amount) {
        view.computeIfAbsent(payment(n), k -> new ArrayList<>()).add(new RefundAudit.Seen(refundId, payment(n), status,
                amount));
    }

    /** A refund oncepay answered, refunded at the provider and shows with the same status. */
    private void agreed(int n, int index, int status, String refundId, String refundStatus, long amount) {
        answered(asked(n, index, amount), status, refundId, refundStatus, amount);
        atProvider(n, refundId, amount, refundStatus);
        inOncepay(n, refundId, refundStatus, amount);
    }

    private RefundAudit.Verdict verdict() {
        return RefundAudit.judge(records, new RefundAudit.Ledger(charges, ledger), view);
    }

    /** Every kind of legitimate answer: partial, replayed, refused (402, 409), pending then settled, everything left. */
    private void cleanSet() {
        charged(1);
        agreed(1, 0, 201, "ref_a", "succeeded", 3000);
        RefundRecord retried = records.get(0);
        retried.answered(0, new RefundRecord.Answer("POST", 201, null, "ref_a", "succeeded", 3000L, true, 1));
        agreed(1, 1, 201, "ref_b", "succeeded", 3000);
        agreed(1, 2, 402, "ref_c", "failed", 3000);
        RefundRecord rest = asked(1, 3, null);
        rest.answered(0, new RefundRecord.Answer("POST", 202, null, "ref_d", "pending", 3000L, false, 2));
        rest.answered(0, new RefundRecord.Answer("GET", 200, null, "ref_d", "succeeded", 3000L, false, 3));
        atProvider(1, "ref_d", 3000, "succeeded");
        inOncepay(1, "ref_d", "succeeded", 3000);
        RefundRecord tooMuch = asked(1, 4, PAID / 2);
        tooMuch.answered(0, new RefundRecord.Answer("POST", 409, "refund-exceeds-charge", null, null, null, false, 4));
        // A pending refund the provider later refused: accepted, but nothing refunded, and it holds nothing.
        charged(2);
        RefundRecord refused = asked(2, 0, PAID);
        refused.answered(0, new RefundRecord.Answer("POST", 202, null, "ref_e", "pending", PAID, false, 5));
        atProvider(2, "ref_e", PAID, "failed");
        inOncepay(2, "ref_e", "failed", PAID);
        agreed(2, 1, 201, "ref_f", "succeeded", PAID);
    }

    @Test
    void aCleanSetHasNoViolation() {
        cleanSet();
        RefundAudit.Verdict v = verdict();
        assertEquals(List.of(0, 0, 0), List.of(v.overRefunds(), v.doubleRefunds(), v.lostRefunds()), v.details().toString());
        assertTrue(v.ok());
        assertEquals(7, v.asked());
        assertEquals(2, v.orders());
        assertEquals(1, v.replays());
        assertEquals(Map.of("201", 4, "202", 2, "402", 1, "409 refund-exceeds-charge", 1), v.answers());
        assertTrue(v.lines().equals("over-refunds: 0\ndouble refunds: 0\nlost refunds: 0"), v.lines());
    }

    @Test
    void providerRefundsAboveTheChargeAreAnOverRefund() {
        cleanSet();
        agreed(1, 5, 201, "ref_g", "succeeded", 1);
        RefundAudit.Verdict v = verdict();
        // At the provider 9001 of 9000 are held, and oncepay accepted as much.
        assertEquals(2, v.overRefunds(), v.details().toString());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("OVER-REFUND at the provider: charge ch_1")),
                v.details().toString());
        assertEquals(0, v.doubleRefunds() + v.lostRefunds(), v.details().toString());
    }

    @Test
    void aPendingProviderRefundHoldsItsAmount() {
        charged(3);
        agreed(3, 0, 201, "ref_h", "succeeded", 6000);
        atProvider(3, "ref_i", 6000, "pending"); // a refund oncepay does not know, still pending
        RefundAudit.Verdict v = verdict();
        assertEquals(1, v.overRefunds(), v.details().toString());
        assertEquals(1, v.lostRefunds(), "its reference is unknown to oncepay: " + v.details());
    }

    @Test
    void acceptedAnswersAboveThePaymentAreAnOverRefundWhateverTheLedgerSays() {
        cleanSet();
        charged(4);
        answered(asked(4, 0, 6000L), 201, "ref_j", "succeeded", 6000);
        answered(asked(4, 1, 6000L), 200, "ref_k", "needs_review", 6000);
        atProvider(4, "ref_j", 6000, "succeeded");
        inOncepay(4, "ref_j", "succeeded", 6000);
        inOncepay(4, "ref_k", "needs_review", 6000);
        RefundAudit.Verdict v = verdict();
        assertEquals(1, v.overRefunds(), v.details().toString());
        assertTrue(v.details().contains("OVER-REFUND by oncepay's answers: payment pay_4 of 9000, accepted refunds "
                + "{ref_j=6000, ref_k=6000} sum to 12000"), v.details().toString());
        assertEquals(0, v.lostRefunds(), "a refund held for review is listed, not judged: " + v.details());
    }

    @Test
    void oneOncepayRefundRefundedTwiceAtTheProviderIsADoubleRefund() {
        cleanSet();
        charged(5);
        agreed(5, 0, 201, "ref_l", "succeeded", 1000);
        atProvider(5, "ref_l", 1000, "succeeded");
        RefundAudit.Verdict v = verdict();
        assertEquals(1, v.doubleRefunds(), v.details().toString());
        assertEquals(0, v.overRefunds() + v.lostRefunds(), v.details().toString());
    }

    @Test
    void oneKeyAnsweredWithTwoRefundsIsADoubleRefund() {
        cleanSet();
        charged(6);
        RefundRecord r = asked(6, 0, 1000L);
        answered(r, 201, "ref_m", "succeeded", 1000);
        answered(r, 201, "ref_n", "succeeded", 1000);
        for (String id : List.of("ref_m", "ref_n")) {
            atProvider(6, id, 1000, "succeeded");
            inOncepay(6, id, "succeeded", 1000);
        }
        RefundAudit.Verdict v = verdict();
        assertEquals(1, v.doubleRefunds(), v.details().toString());
        assertTrue(v.details().contains("DOUBLE REFUND key key-6-refund-0 (payment pay_6): its answers name"
                + " [ref_m, ref_n]"), v.details().toString());
    }

    @Test
    void aProviderRefundOncepayDoesNotKnowIsLost() {
        cleanSet();
        atProvider(1, "ref_unknown", 1, "failed");
        RefundAudit.Verdict v = verdict();
        assertEquals(1, v.lostRefunds(), v.details().toString());
        assertEquals(0, v.overRefunds(), "a failed refund holds nothing: " + v.details());
    }

    @Test
    void statusesThatDisagreeAreLost() {
        cleanSet();
        charged(7);
        answered(asked(7, 0, 1000L), 402, "ref_o", "failed", 1000);
        atProvider(7, "ref_o", 1000, "succeeded"); // refused to the client, refunded at the provider
        inOncepay(7, "ref_o", "failed", 1000);
        answered(asked(7, 1, 1000L), 202, "ref_p", "pending", 1000);
        atProvider(7, "ref_p", 1000, "failed"); // final at the provider, still pending in oncepay
        inOncepay(7, "ref_p", "pending", 1000);
        RefundAudit.Verdict v = verdict();
        assertEquals(2, v.lostRefunds(), v.details().toString());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("LOST REFUND ref_p: oncepay says pending, the"
                + " provider's refund") && d.endsWith(" is failed")), v.details().toString());
    }

    @Test
    void anAcceptedRefundTheProviderNeverHeldIsLost() {
        cleanSet();
        charged(8);
        answered(asked(8, 0, 1000L), 201, "ref_q", "succeeded", 1000);
        inOncepay(8, "ref_q", "succeeded", 1000);
        answered(asked(8, 1, 1000L), 202, "ref_r", "pending", 1000); // nothing sent, yet oncepay does not say failed
        inOncepay(8, "ref_r", "pending", 1000);
        RefundAudit.Verdict v = verdict();
        assertEquals(2, v.lostRefunds(), v.details().toString());
        assertEquals(0, v.overRefunds() + v.doubleRefunds(), v.details().toString());
    }
}
