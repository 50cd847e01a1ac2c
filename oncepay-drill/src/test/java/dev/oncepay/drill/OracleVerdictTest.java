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

/**
 * The drill's verdict on made-up evidence, timed to the millisecond: which charge requests are
 * orphans, and when an order charged twice is oncepay's double charge. (The drill itself shows it
 * works on a real run; this pins its rules.)
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
                Workload.Behaviour.NORMAL, 100, shopper, null, null, Workload.AtPrompt.NONE));
    }

    /** A POST with {@code key} from {@code startMs} to {@code endMs}, answered {@code outcome}. */
    private void post(String key, long startMs, long endMs, String outcome, String paymentId) {
        recorder.attempts.add(new Recorder.Attempt(0, "POST", key, startMs, endMs - startMs, outcome, false, paymentId));
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

    @Test
    void aChargeRequestAfterTheKeysLastAnswerWasAnErrorIsAnOrphan() throws Exception {
        Recorder.PaymentRecord order = order(false);
        post("key-1", 0, 1000, "502", null);
        post("key-1", 6000, 6100, "201", "pay_1");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_1", 6100));
        charged("pay_1", "key-1", 3000); // between the 502 and the retry: nobody waits
        Oracle.Verdict v = verdict(order);
        assertEquals(1, v.orphanCharges(), v.details().toString());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("ORPHAN CHARGE") && d.contains("502 at +1.0 s")),
                v.details().toString());
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
        assertEquals(0, v.chargedAfterKilledRun());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("DOUBLE CHARGE order order_1")
                && d.contains("cause: oncepay charged payment pay_1 with nobody waiting")), v.details().toString());
        assertTrue(!v.ok());
    }

    @Test
    void anOrderPaidAgainAfterTheDrillKilledTheRunThatChargedItIsReportedApart() throws Exception {
        Recorder.PaymentRecord order = order(true);
        post("key-1", 0, 1000, "502", null);
        charged("pay_1", "key-1", 400);
        chargeKills.add(700L); // the run died after its charge reached the provider
        String again = order.payAgain(0, 1000, "502");
        post(again, 1200, 1500, "201", "pay_2");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_2", 1500));
        charged("pay_2", again, 1300);
        Oracle.Verdict v = verdict(order);
        assertEquals(0, v.doubleCharges(), v.details().toString());
        assertEquals(1, v.chargedAfterKilledRun());
        assertEquals(0, v.orphanCharges());
        assertTrue(v.details().stream().anyMatch(d -> d.startsWith("CHARGED TWICE AFTER A KILLED RUN")),
                v.details().toString());
    }

    @Test
    void withoutAKilledRunTheSameOrderIsADoubleCharge() throws Exception {
        Recorder.PaymentRecord order = order(true);
        post("key-1", 0, 1000, "502", null);
        charged("pay_1", "key-1", 400); // no kill: the 502 came from somewhere else
        String again = order.payAgain(0, 1000, "502");
        post(again, 1200, 1500, "201", "pay_2");
        order.answered(0, new Recorder.Answer(201, "succeeded", "pay_2", 1500));
        charged("pay_2", again, 1300);
        Oracle.Verdict v = verdict(order);
        assertEquals(1, v.doubleCharges(), v.details().toString());
        assertEquals(0, v.chargedAfterKilledRun());
    }
}
