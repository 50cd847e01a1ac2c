package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The figures of orders paid asynchronously: the {@code 202}s that queued a charge, their answers
 * by outcome, the time from the {@code 202} to the outcome and from the first request to it, and
 * the summary's lines of them and of each charge queue.
 */
class MeasurementsTest {
    private final Recorder recorder = new Recorder();

    private Recorder.PaymentRecord order(int index, boolean respondAsync) {
        return new Recorder.PaymentRecord(new Workload.Plan(index, "merchant-a", "key-" + index, 4200, "EUR",
                "order_" + index, Workload.Behaviour.NORMAL, 0, false, null, null, Workload.AtPrompt.NONE, respondAsync));
    }

    private void post(int payment, long startMs, long latencyMs, String outcome, boolean replayed, boolean respondAsync,
            boolean applied) {
        recorder.attempts.add(new Recorder.Attempt(payment, "POST", "key-" + payment, startMs, latencyMs, outcome,
                replayed, "pay_" + payment, respondAsync, applied));
    }

    @Test
    void queuedChargesAreMeasuredApartFromChargesInTheRequest() {
        Recorder.PaymentRecord queued = order(0, true);
        Recorder.PaymentRecord inRequest = order(1, false);
        post(0, 100, 40, "502", false, true, false);
        post(0, 500, 30, "202", false, true, true);
        post(0, 1500, 20, "202", true, true, true);
        post(0, 3000, 25, "201", true, true, false);
        post(1, 0, 5200, "202", false, false, false); // an unknown outcome of a charge in the request
        queued.answered(0, new Recorder.Answer(202, "pending", "pay_0", 530));
        queued.answered(0, new Recorder.Answer(200, "succeeded", "pay_0", 1330));
        inRequest.answered(0, new Recorder.Answer(202, "pending", "pay_1", 5200));
        inRequest.answered(0, new Recorder.Answer(200, "succeeded", "pay_1", 9200));
        Measurements m = new Measurements(DrillOptions.defaults(), recorder, List.of(queued, inRequest));

        assertEquals(List.of(30L), m.queued202LatencyMs(), "the first 202 that queued it, not its replay");
        assertEquals(Map.of("502", 1L, "202 queued", 1L, "202 queued replay", 1L, "201 replay", 1L), m.asyncAnswers());
        assertEquals(List.of(800L), m.unknownToTerminal(r -> r.plan.respondAsync()));
        assertEquals(List.of(4000L), m.unknownToTerminal(r -> !r.plan.respondAsync()));
        assertEquals(List.of(1230L), m.toOutcome(r -> r.plan.respondAsync()), "from its first request, the 502's");
        assertEquals(List.of(430L), m.endToEnd(r -> r.plan.respondAsync()));
    }

    @Test
    void eachQueueHasOneLineWithItsDeadLetters() {
        Recorder.PaymentRecord queued = order(0, true);
        post(0, 500, 30, "202", false, true, true);
        Measurements m = new Measurements(DrillOptions.defaults(), recorder, List.of(queued));
        m.deliveries = List.of(new QueueDelivery("oncepay-charges-default", "charge-worker#1", 1, 0, 200),
                new QueueDelivery("oncepay-charges-default", "charge-worker#2", 1, 1, 14000));
        m.queueLagsMs = List.of(40L, 9000L);
        m.queueDeepest = Map.of("oncepay-charges-default", new QueueWatch.Depth(4500, 3, 2, 7),
                "oncepay-charges-default-dlq", new QueueWatch.Depth(9000, 1, 0, 0));
        m.queueAtEnd = Map.of("oncepay-charges-default", new QueueWatch.Depth(60000, 0, 0, 0),
                "oncepay-charges-default-dlq", new QueueWatch.Depth(60000, 1, 0, 0));

        String lines = String.join("\n", Report.queued(DrillOptions.defaults(), m)).replaceAll("\n +", " ");

        assertTrue(lines.contains("async payments (Prefer: respond-async, share 0.30): 1 orders; their POST answers:"
                + " 202 queued 1;"), lines);
        assertTrue(lines.contains("202 of a queued charge: n 1 p50 30 p95 30 p99 30 ms"), lines);
        assertTrue(lines.contains("queue lag (its ChargeQueueLag: request to its start) n 2 p50 40 p95 9000 max 9000"
                + " ms; 14200 ms of worker invocations per async order"), lines);
        assertTrue(lines.contains("queue oncepay-charges-default: deepest 12 at +4.5 s (3 waiting, 2 in flight, 7"
                + " delayed); 2 worker invocations (2 messages, 1 failed) p50 200 p95 14000 ms; left at the end 0 at"
                + " +60.0 s (0 waiting, 0 in flight, 0 delayed); dead letters 1"), lines);
        assertFalse(lines.contains("queue oncepay-charges-default-dlq"), "on its queue's line: " + lines);
    }

    @Test
    void percentilesAreNamed() {
        assertEquals("p50 2 p95 4", Report.percentiles(List.of(1L, 2L, 3L, 4L), 50, 95));
        assertEquals("p50 -1", Report.percentiles(List.of(), 50), "none measured");
    }
}
