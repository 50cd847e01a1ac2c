package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Table;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The drill's verdict on made-up evidence, timed to the millisecond: which charge requests are
 * orphans (a queued request's lost answer leaves its client waiting), that every order charged twice
 * is a double charge (its cause in the detail), which answers agree with the ledger — a followed
 * order's payment and a refused, deleted one included — and that a queued request refused for the
 * provider's state fails the verdict.
 * (The drill itself shows it works on a real run; this pins its rules.)
 */
class OracleVerdictTest {
    private static final String TENANT = "merchant-a";

    private final Recorder recorder = new Recorder();
    private final Oracle oracle = new Oracle(HttpClient.newHttpClient(), "http://127.0.0.1:9", "http://127.0.0.1:9",
            "http://127.0.0.1:9", "oncepay-drill");
    private final Map<String, Oracle.StoredPayment> payments = new HashMap<>();
    private final Map<String, Oracle.StoredKey> keys = new HashMap<>();
    private final List<Oracle.LedgerCharge> ledger = new ArrayList<>();
    private final List<WireTap.ChargeRequest> requests = new ArrayList<>();
    private final List<Long> chargeKills = new ArrayList<>();

    @AfterEach
    void close() {
        oracle.close();
    }

    private Recorder.PaymentRecord order(boolean shopper) {
        return new Recorder.PaymentRecord(new Workload.Plan(0, TENANT, "key-1", 4200, "EUR", "order_1",
                Workload.Behaviour.NORMAL, 100, shopper, null, null, Workload.AtPrompt.NONE, false));
    }

    /** A POST with {@code key} from {@code startMs} to {@code endMs}, answered {@code outcome}. */
    private void post(String key, long startMs, long endMs, String outcome, String paymentId) {
        post(key, startMs, endMs, outcome, paymentId, false);
    }

    /** The same, with {@code Prefer: respond-async} if {@code queued}: then a {@code 202} says its charge is queued. */
    private void post(String key, long startMs, long endMs, String outcome, String paymentId, boolean queued) {
        recorder.attempts.add(new Recorder.Attempt(0, "POST", key, startMs, endMs - startMs, outcome, false, paymentId,
                queued, queued && outcome.equals("202")));
    }

    /** Payment {@code id} of {@code key}, settled SUCCEEDED, its charge requested at {@code requestedMs}. */
    private void charged(String id, String key, long requestedMs) {
        keys.put(Table.keyItemId(TENANT, key), new Oracle.StoredKey(key, id, 0));
        payments.put(id, new Oracle.StoredPayment(id, TENANT, "SUCCEEDED", null, "order_1", recorder.t0WallMs));
        ledger.add(new Oracle.LedgerCharge("ch_" + id, id, "succeeded", "oncepay-" + id,
                recorder.t0WallMs + requestedMs + 1));
        requests.add(new WireTap.ChargeRequest(recorder.t0Nanos + requestedMs * 1_000_000, "oncepay-" + id, id,
                "order_1", new AtomicReference<>("200 succeeded")));
    }

    private Oracle.Verdict verdict(Recorder.PaymentRecord order) throws InterruptedException {
        return verdict(order, Set.of());
    }

    private Oracle.Verdict verdict(Recorder.PaymentRecord order, Set<String> awaitingCustomer)
            throws InterruptedException {
        return oracle.verdict(List.of(order), new Oracle.Snapshot(payments, keys, List.of()), ledger,
                new Oracle.Evidence(requests, List.of(), chargeKills, awaitingCustomer), recorder);
    }

    /** Payment {@code id} of {@code key}, still UNKNOWN in the table, its PaymentIntent created (no charge). */
    private void pendingAtTheProvider(String id, String key, long requestedMs) {
        keys.put(Table.keyItemId(TENANT, key), new Oracle.StoredKey(key, id, 0));
        payments.put(id, new Oracle.StoredPayment(id, TENANT, "UNKNOWN", null, "order_1", recorder.t0WallMs));
        requests.add(new WireTap.ChargeRequest(recorder.t0Nanos + requestedMs * 1_000_000, "oncepay-" + id, id,
                "order_1", new AtomicReference<>("200 requires_action")));
    }

    @Test
    void aPaymentWaitingForItsCustomerIsNeitherLostNorStuckAndPendingIsTheTruth() throws Exception {
        Recorder.PaymentRecord order = order(false);
        post("key-1", 0, 1000, "202", "pay_1");
        order.answered(0, new Recorder.Answer(202, "pending", "pay_1", 1000));
        pendingAtTheProvider("pay_1", "key-1", 500);
        Oracle.Verdict v = verdict(order, Set.of("pay_1"));
        assertEquals(1, v.awaitingCustomer(), v.details().toString());
        assertEquals(0, v.stuck(), v.details().toString());
        assertEquals(0, v.lost());
        assertEquals(0, v.disagreeing(), v.details().toString());
        assertTrue(v.ok(), v.details().toString());
        assertTrue(order.settledForClient(Set.of("pay_1")));
    }

    @Test
    void theSettlePhaseWaitsForLiveClaimsButNotForPaymentsAwaitingTheirCustomer() {
        long now = System.currentTimeMillis();
        keys.put("claimed", new Oracle.StoredKey("claimed", null, now + 10_000)); // claimed, payment not yet recorded
        pendingAtTheProvider("pay_1", "key-1", 500);
        keys.put(Table.keyItemId(TENANT, "key-1"), new Oracle.StoredKey("key-1", "pay_1", now + 10_000));
        Oracle.Snapshot table = new Oracle.Snapshot(payments, keys, List.of());
        assertEquals(2, table.liveLeasesWithoutOutcome(now, Set.of()));
        assertEquals(1, table.nonTerminal(Set.of()));
        assertEquals(1, table.liveLeasesWithoutOutcome(now, Set.of("pay_1")), "the claim without a payment still counts");
        assertEquals(0, table.nonTerminal(Set.of("pay_1")));
    }

    @Test
    void aPendingPaymentTheProviderDoesNotHoldForItsCustomerIsStuck() throws Exception {
        Recorder.PaymentRecord order = order(false);
        post("key-1", 0, 1000, "202", "pay_1");
        order.answered(0, new Recorder.Answer(202, "pending", "pay_1", 1000));
        pendingAtTheProvider("pay_1", "key-1", 500);
        Oracle.Verdict v = verdict(order);
        assertEquals(0, v.awaitingCustomer());
        assertEquals(1, v.stuck(), v.details().toString());
        assertEquals(1, v.disagreeing(), "still pending for the client: " + v.details());
        assertTrue(!v.ok());
        assertTrue(!order.settledForClient(Set.of()));
    }

    @Test
    void aChargeRequestWhileItsKeyWaitsIsNoOrphan() throws Exception {
        Recorder.PaymentRecord order = order(false);
        post("key-1", 0, 1000, "201", "pay_1");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_1", 1000));
        charged("pay_1", "key-1", 500);
        Oracle.Verdict v = verdict(order);
        assertEquals(0, v.orphanCharges(), v.details().toString());
        assertEquals(0, v.doubleCharges());
        assertTrue(v.ok(), v.details().toString());
    }

    /**
     * A charge between an error and the retry that finds it settled: nobody waits for it, unless the
     * request asked for a queued charge and never heard what became of it (the sandbox died after the
     * enqueue; the charge worker charges it later); a queued request told {@code 503} stored nothing.
     */
    @ParameterizedTest(name = "respond-async {0}, answered {1}: {2} orphan(s)")
    @CsvSource({"false, 502, 1", "true, 502, 0", "true, 503-queue, 1"})
    void aChargeRequestAfterTheKeysLastAnswerWasAnErrorIsAnOrphanUnlessItsChargeMayBeQueued(boolean queued,
            String error, int orphans) throws Exception {
        Recorder.PaymentRecord order = order(false);
        post("key-1", 0, 1000, error, null, queued);
        post("key-1", 6000, 6100, "201", "pay_1", queued);
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_1", 6100));
        charged("pay_1", "key-1", 3000);
        Oracle.Verdict v = verdict(order);
        assertEquals(orphans, v.orphanCharges(), v.details().toString());
        assertEquals(orphans == 1, v.details().stream().anyMatch(d -> d.startsWith("ORPHAN CHARGE")
                && d.contains(error + " at +1.0 s")), v.details().toString());
    }

    @Test
    void aChargeRequestAfterTheKeyWasAnswered202MayBeTheSweepsResend() throws Exception {
        Recorder.PaymentRecord order = order(false);
        post("key-1", 0, 1000, "202", "pay_1");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_1", 9000));
        charged("pay_1", "key-1", 8000);
        assertEquals(0, verdict(order).orphanCharges());
    }

    @Test
    void aQueuedRequestAnsweredThatTheProviderIsAtCapacityFailsTheVerdict() throws Exception {
        Recorder.PaymentRecord order = order(false);
        post("key-1", 0, 100, "503-capacity", null, true);
        post("key-1", 1000, 1050, "202", "pay_1", true);
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_1", 2000));
        charged("pay_1", "key-1", 1500);
        Oracle.Verdict v = verdict(order);
        assertEquals(1, v.asyncRefused(), v.details().toString());
        assertTrue(v.lines().endsWith("\nasync 503 provider-at-capacity/unavailable: 1"), v.lines());
        assertTrue(v.details().contains("ASYNC REFUSED key key-1: asked Prefer: respond-async at +0.0 s, answered"
                + " 503-capacity"), v.details().toString());
        assertTrue(!v.ok());
    }

    @Test
    void anOrderPaidAgainAfterOncepayResentTheFirstPaymentIsADoubleChargeAndAnOrphan() throws Exception {
        Recorder.PaymentRecord order = order(true);
        post("key-1", 0, 1000, "503-store", null);
        String again = order.payAgain(0, 1000, "503-store");
        post(again, 1200, 1500, "201", "pay_2");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_2", 1500));
        charged("pay_2", again, 1300);
        charged("pay_1", "key-1", 20_000); // the sweep sends the first payment's charge
        Oracle.Verdict v = verdict(order);
        assertEquals(1, v.doubleCharges(), v.details().toString());
        assertEquals(1, v.orphanCharges());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("DOUBLE CHARGE order order_1")
                && d.contains("cause: oncepay charged payment pay_1 with nobody waiting")), v.details().toString());
        assertTrue(!v.ok());
    }

    @Test
    void anOrderPaidAgainAfterTheDrillKilledTheRunThatChargedItIsADoubleChargeWithThatCause() throws Exception {
        Recorder.PaymentRecord order = order(true);
        post("key-1", 0, 1000, "502", null);
        charged("pay_1", "key-1", 400);
        chargeKills.add(700L); // the run died after its charge reached the provider
        String again = order.payAgain(0, 1000, "502");
        post(again, 1200, 1500, "201", "pay_2");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_2", 1500));
        charged("pay_2", again, 1300);
        Oracle.Verdict v = verdict(order);
        assertEquals(1, v.doubleCharges(), v.details().toString());
        assertEquals(0, v.orphanCharges());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("DOUBLE CHARGE order order_1")
                && d.contains("cause: the drill killed the run charging key key-1")), v.details().toString());
        assertTrue(v.lines().startsWith("double charges per order: 1\n"), v.lines());
        assertTrue(!v.ok());
    }

    @Test
    void withoutAKilledRunTheSameOrderIsADoubleChargeNobodyExplains() throws Exception {
        Recorder.PaymentRecord order = order(true);
        post("key-1", 0, 1000, "502", null);
        charged("pay_1", "key-1", 400); // no kill: the 502 came from somewhere else
        String again = order.payAgain(0, 1000, "502");
        post(again, 1200, 1500, "201", "pay_2");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_2", 1500));
        charged("pay_2", again, 1300);
        Oracle.Verdict v = verdict(order);
        assertEquals(1, v.doubleCharges(), v.details().toString());
        assertTrue(v.details().stream().anyMatch(d -> d.contains("cause: no killed run explains it")),
                v.details().toString());
    }

    @Test
    void aShopperWhoFollowedTheOrdersPaymentAgreesWithItsChargeAndItsRefusedPaymentIsNeitherLostNorStuck()
            throws Exception {
        Recorder.PaymentRecord order = order(true);
        post("key-1", 0, 1000, "502", null);
        charged("pay_1", "key-1", 400); // the killed run's charge; the sweep settles its payment
        chargeKills.add(700L);
        String again = order.payAgain(0, 1000, "502");
        // The fresh key's payment was refused before any provider call: deleted, its key released.
        post(again, 1200, 1300, "409-order-in-progress", null);
        order.followed.incrementAndGet();
        recorder.attempts.add(new Recorder.Attempt(0, "GET", null, 2300, 50, "200", false, "pay_1", false, false));
        order.answered(0, new Recorder.Answer(200, "succeeded", "pay_1", 2350, true));
        Oracle.Verdict v = verdict(order);
        assertEquals(0, v.disagreeing(), v.details().toString());
        assertEquals(0, v.doubleCharges(), v.details().toString());
        assertEquals(0, v.orphanCharges(), v.details().toString());
        assertEquals(0, v.lost(), v.details().toString());
        assertEquals(0, v.stuck(), v.details().toString());
        assertEquals(1, v.followedAnswers());
        assertEquals(1, v.repaidOrders());
        assertTrue(v.details().stream().noneMatch(d -> d.startsWith("CONFLICT")), v.details().toString());
        assertTrue(v.ok(), v.details().toString());
    }

    @Test
    void aFollowedAnswerDisagreesWhenTheLedgerSaysOtherwiseOfThatPayment() throws Exception {
        Recorder.PaymentRecord order = doubleClicked();
        post("key-1", 0, 1000, "201", "pay_1");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_1", 1000));
        charged("pay_1", "key-1", 500);
        post("key-1-click", 50, 120, "409-order-in-progress", null);
        order.answered(1, new Recorder.Answer(200, "failed", "pay_1", 1100, true));
        Oracle.Verdict v = verdict(order);
        assertEquals(1, v.disagreeing(), v.details().toString());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("DISAGREEING key key-1-click (DOUBLE_CLICK,"
                + " followed the order's payment pay_1)")), v.details().toString());
    }

    @Test
    void aFollowedPaymentDeletedUnsentAgreesWhenNothingChargedIt() throws Exception {
        Recorder.PaymentRecord order = doubleClicked();
        post("key-1", 0, 1000, "503-breaker", null); // its payment was bound, not sent, deleted
        order.answered(0, new Recorder.Answer(503, "unavailable", null, 1000));
        post("key-1-click", 50, 120, "409-order-in-progress", null);
        order.answered(1, new Recorder.Answer(404, "not_found", "pay_1", 1200, true));
        Oracle.Verdict v = verdict(order);
        assertEquals(0, v.disagreeing(), v.details().toString());
        assertEquals(1, v.doubleClickedOrders());
        assertTrue(v.ok(), v.details().toString());
        assertTrue(!order.settledForClient(Set.of()), "the settle phase asks again under the click's own key");
    }

    @Test
    void aClickThatFollowedADeclinedPaymentAgreesThoughTheOrderIsPaidAfterUnderAnotherKey() throws Exception {
        Recorder.PaymentRecord order = doubleClicked();
        post("key-1", 0, 1000, "502", null); // declined, but the gateway's answer was lost
        keys.put(Table.keyItemId(TENANT, "key-1"), new Oracle.StoredKey("key-1", "pay_1", 0));
        payments.put("pay_1", new Oracle.StoredPayment("pay_1", TENANT, "FAILED", "declined", "order_1",
                recorder.t0WallMs));
        ledger.add(new Oracle.LedgerCharge("ch_pay_1", "pay_1", "declined", "oncepay-pay_1", recorder.t0WallMs + 500));
        requests.add(new WireTap.ChargeRequest(recorder.t0Nanos + 400 * 1_000_000L, "oncepay-pay_1", "pay_1",
                "order_1", new AtomicReference<>("200 declined")));
        post("key-1-click", 50, 120, "409-order-in-progress", null);
        order.answered(1, new Recorder.Answer(200, "failed", "pay_1", 1100, true));
        String again = order.payAgain(0, 1000, "502");
        post(again, 1200, 1500, "201", "pay_2"); // the order's payment definitely failed: it binds again
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_2", 1500));
        charged("pay_2", again, 1300);
        Oracle.Verdict v = verdict(order);
        assertTrue(v.ok(), v.details().toString());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("note: order order_1 was last told 200 failed on key"
                + " key-1-click of the order's payment pay_1 it followed (FAILED, declined)")), v.details().toString());
    }

    private Recorder.PaymentRecord doubleClicked() {
        return new Recorder.PaymentRecord(new Workload.Plan(0, TENANT, "key-1", 4200, "EUR", "order_1",
                Workload.Behaviour.DOUBLE_CLICK, 40, false, null, null, Workload.AtPrompt.NONE, false));
    }
}
