package dev.oncepay.drill;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** Everything the clients saw, time-stamped in milliseconds since the workload started. */
final class Recorder {
    /**
     * One HTTP request of a client. {@code outcome}: 201, 402, 202, 409-request-in-flight,
     * 409-order-in-progress (a 409 with its problem type), 503-breaker, 503-capacity, 503-store,
     * 503-queue, 503-gw, 502, timeout, ...; {@code key} the Idempotency-Key of a POST (null for a GET);
     * {@code paymentId} the payment its answer is about, or null (a 409 order refusal's {@code
     * Location} names another key's payment: it is the {@link Answer}'s, not the attempt's);
     * {@code respondAsync} a POST that asked {@code Prefer: respond-async}; {@code applied} its answer
     * said {@code Preference-Applied: respond-async} (the charge is on its queue).
     */
    record Attempt(int payment, String method, String key, long startMs, long latencyMs, String outcome,
            boolean replayed, String paymentId, boolean respondAsync, boolean applied) {
        long endMs() {
            return startMs + latencyMs;
        }
    }

    /** A shopper gave up on a key at {@code atMs} after this answer ({@code 502}, {@code 503-gw}, {@code timeout}, ...). */
    record GaveUp(long atMs, String outcome) {
    }

    /**
     * A submitter's answer: the HTTP status and what it says about the payment.
     *
     * @param followed the payment is the order's bound payment (another key's), which a {@code 409}
     *        order refusal named in its {@code Location} and the client followed instead of paying
     */
    record Answer(int status, String paymentStatus, String paymentId, long atMs, boolean followed) {
        Answer(int status, String paymentStatus, String paymentId, long atMs) {
            this(status, paymentStatus, paymentId, atMs, false);
        }

        boolean terminal() {
            return "succeeded".equals(paymentStatus) || "failed".equals(paymentStatus)
                    || "needs_review".equals(paymentStatus);
        }
    }

    /** What the clients know about one logical payment (one merchant order). */
    static final class PaymentRecord {
        final Workload.Plan plan;
        final Set<String> ids = ConcurrentHashMap.newKeySet();
        /** Every key that paid this order, in the order the clients first used them (a double click's two first). */
        final List<String> keys = new java.util.concurrent.CopyOnWriteArrayList<>();
        /** Shoppers' abandoned keys: when and after which answer they gave up on each. */
        final Map<String, GaveUp> abandoned = new ConcurrentHashMap<>();
        private final String[] currentKey;
        private int freshKeys;
        final Answer[] last;
        final AtomicInteger posts = new AtomicInteger();
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger unexpected = new AtomicInteger();
        /** Times a submitter stopped paying to follow the order's payment a {@code 409} named. */
        final AtomicInteger followed = new AtomicInteger();
        volatile long startMs = -1;
        volatile long firstAnswerMs = -1;
        volatile long unknownAtMs = -1;
        volatile long terminalAtMs = -1;

        PaymentRecord(Workload.Plan plan) {
            this.plan = plan;
            this.last = new Answer[plan.submitters()];
            this.currentKey = new String[plan.submitters()];
            for (int s = 0; s < currentKey.length; s++) {
                currentKey[s] = plan.key(s);
                if (!keys.contains(currentKey[s])) {
                    keys.add(currentKey[s]);
                }
            }
        }

        synchronized String key(int submitter) {
            return currentKey[submitter];
        }

        /** A shopper gives up on its key after an error at {@code atMs} and takes a fresh one. */
        synchronized String payAgain(int submitter, long atMs, String outcome) {
            abandoned.put(currentKey[submitter], new GaveUp(atMs, outcome));
            currentKey[submitter] = plan.freshKey(++freshKeys);
            keys.add(currentKey[submitter]);
            last[submitter] = null; // what it was told about the old key no longer concerns it
            return currentKey[submitter];
        }

        synchronized void answered(int submitter, Answer answer) {
            last[submitter] = answer;
            if (answer.paymentId() != null) {
                ids.add(answer.paymentId());
            }
            boolean definitive = answer.status() == 201 || answer.status() == 402 || answer.status() == 202
                    || answer.followed();
            if (definitive && firstAnswerMs < 0) {
                firstAnswerMs = answer.atMs();
            }
            if ("pending".equals(answer.paymentStatus()) && !answer.followed() && unknownAtMs < 0) {
                unknownAtMs = answer.atMs();
            }
            if (answer.terminal() && terminalAtMs < 0) {
                terminalAtMs = answer.atMs();
            }
        }

        /** Every submitter has a terminal answer, or a pending one for a payment that waits for its customer. */
        synchronized boolean settledForClient(Set<String> awaitingCustomer) {
            for (Answer a : last) {
                if (a == null || !a.terminal() && !(a.paymentId() != null && awaitingCustomer.contains(a.paymentId()))) {
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
    /** The same instant on the wall clock, to place the functions' and the provider's timestamps. */
    final long t0WallMs = System.currentTimeMillis();
    final ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
    /** Timeline events for the report: faults changed, crashes, phases. */
    final ConcurrentLinkedQueue<Map.Entry<Long, String>> events = new ConcurrentLinkedQueue<>();

    long nowMs() {
        return msOf(System.nanoTime());
    }

    /** A {@link System#nanoTime()} reading in ms since the workload started. */
    long msOf(long nanos) {
        return (nanos - t0Nanos) / 1_000_000;
    }

    void event(String what) {
        events.add(Map.entry(nowMs(), what));
    }
}
