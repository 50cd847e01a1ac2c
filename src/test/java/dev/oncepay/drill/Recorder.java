package dev.oncepay.drill;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** Everything the clients saw, time-stamped in milliseconds since the workload started. */
final class Recorder {
    /** One HTTP request of a client. {@code outcome}: 201, 402, 202, 409, 503, 503-gw, 502, timeout, ... */
    record Attempt(int payment, String method, long startMs, long latencyMs, String outcome, boolean replayed) {
    }

    /** A submitter's answer: the HTTP status and what it says about the payment. */
    record Answer(int status, String paymentStatus, String paymentId, long atMs) {
        boolean terminal() {
            return "succeeded".equals(paymentStatus) || "failed".equals(paymentStatus)
                    || "needs_review".equals(paymentStatus);
        }
    }

    /** What the clients know about one logical payment. */
    static final class PaymentRecord {
        final Workload.Plan plan;
        final Set<String> ids = ConcurrentHashMap.newKeySet();
        final Answer[] last;
        final AtomicInteger posts = new AtomicInteger();
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger unexpected = new AtomicInteger();
        volatile long startMs = -1;
        volatile long firstAnswerMs = -1;
        volatile long unknownAtMs = -1;
        volatile long terminalAtMs = -1;

        PaymentRecord(Workload.Plan plan) {
            this.plan = plan;
            this.last = new Answer[plan.submitters()];
        }

        synchronized void answered(int submitter, Answer answer) {
            last[submitter] = answer;
            if (answer.paymentId() != null) {
                ids.add(answer.paymentId());
            }
            if ((answer.status() == 201 || answer.status() == 402 || answer.status() == 202) && firstAnswerMs < 0) {
                firstAnswerMs = answer.atMs();
            }
            if ("pending".equals(answer.paymentStatus()) && unknownAtMs < 0) {
                unknownAtMs = answer.atMs();
            }
            if (answer.terminal() && terminalAtMs < 0) {
                terminalAtMs = answer.atMs();
            }
        }

        synchronized boolean settledForClient() {
            for (Answer a : last) {
                if (a == null || !a.terminal()) {
                    return false;
                }
            }
            return true;
        }

        synchronized List<Answer> lastAnswers() {
            return java.util.Arrays.asList(last.clone());
        }
    }

    final long t0Nanos = System.nanoTime();
    final ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
    /** Timeline events for the report: faults changed, crashes, phases. */
    final ConcurrentLinkedQueue<Map.Entry<Long, String>> events = new ConcurrentLinkedQueue<>();

    long nowMs() {
        return (System.nanoTime() - t0Nanos) / 1_000_000;
    }

    void event(String what) {
        events.add(Map.entry(nowMs(), what));
    }
}
