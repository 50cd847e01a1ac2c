package dev.oncepay.drill;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/** What a drill measured, and the statistics derived from it. */
final class Measurements {
    final DrillOptions options;
    final Recorder recorder;
    final List<Recorder.PaymentRecord> records;
    long workloadEndMs;
    long settleEndMs;
    long outageStartMs = -1;
    long outageEndMs = -1;
    List<FaultSchedule.Window> windows = List.of();
    String baseline = "";
    /** The store's fault schedule (its plan says whether the profile has store faults). */
    FaultSchedule store;
    /** The store fault proxy's count of faults it injected, by kind (its JSON). */
    String storeInjected = "";
    int kills;
    String killsByFunction = "{}";
    int providerCharges = -1;
    /** Status lookups that reached the provider (the tap's count). */
    int providerLookups = -1;
    /** DynamoDB requests of every function during the drill, by operation (the store tap's count). */
    Map<String, Integer> dynamoRequests = Map.of();
    /** Of those, the writes refused because their condition failed (claims lost, races, refused debits). */
    Map<String, Integer> dynamoConditionsFailed = Map.of();
    /** Stripe mode: what the shoppers did at the 3-D Secure prompt (approved, refused, abandoned, ...). */
    Map<String, Integer> authentications = Map.of();
    /**
     * Payments awaiting their customer that oncepay never answered {@code requires_action} (with the
     * client secret) to a client, so no front end could ask the customer.
     */
    int awaitingNeverShown;
    int ledgerCharges;
    /** Breaker transitions the functions logged ({@code <account> <operation> <from> -> <to>}: count). */
    Map<String, Integer> breakerTransitions = Map.of();
    /** The sums of the fleet protection's metrics the functions emitted (BreakerOpen, ProviderAtCapacity, ...). */
    Map<String, Long> protectionMetrics = Map.of();
    /** The provider's own request counts around the outage, or null without one. */
    FaultSchedule.OutageStats outageStats;
    /** The outage's requests against the fleet breaker's bound; null if the provider had no outage. */
    OutageAudit outage;
    /** The wallets' verdict ({@link WalletAudit}). */
    WalletAudit.Verdict wallets;
    /** The refunds' verdict ({@link RefundAudit}). */
    RefundAudit.Verdict refunds;
    /** The merchant events' verdict ({@link EventAudit}). */
    EventAudit.Verdict events;
    /** The merchant endpoint's fault schedule (its dark window). */
    FaultSchedule merchant;
    /** Each charge queue's deepest reading during the drill, by queue name ({@link QueueWatch}). */
    Map<String, QueueWatch.Depth> queueDeepest = Map.of();
    /** Each charge queue's messages once the drill settled, by queue name. */
    Map<String, QueueWatch.Depth> queueAtEnd = Map.of();
    /** The charge worker's invocations by the queues' event-source mappings. */
    List<QueueDelivery> deliveries = List.of();
    /** Event-delivery's invocations by the event queue's mapping. */
    List<QueueDelivery> eventBatches = List.of();
    /** How long after its request the charge worker took up each message, ms (its {@code ChargeQueueLag}). */
    List<Long> queueLagsMs = List.of();
    boolean naiveRan;
    long naiveDurationMs;
    int naiveDoubleCharges;
    int naiveExtraCharges;
    List<NaiveClient.Result> naiveResults = List.of();

    Measurements(DrillOptions options, Recorder recorder, List<Recorder.PaymentRecord> records) {
        this.options = options;
        this.recorder = recorder;
        this.records = records;
    }

    /** POST attempts' latencies by outcome (201, 402, 202, 409, 503, 503-breaker, 502, timeout, ...). */
    Map<String, List<Long>> postLatencyByOutcome() {
        Map<String, List<Long>> result = new TreeMap<>();
        for (Recorder.Attempt a : recorder.attempts) {
            if (a.method().equals("POST")) {
                result.computeIfAbsent(a.outcome() + (a.replayed() ? " replay" : ""), k -> new ArrayList<>())
                        .add(a.latencyMs());
            }
        }
        return result;
    }

    /** Every answer the clients got, by method and outcome (201, 201 replay, 202, 409, 502, 503-breaker, ...). */
    Map<String, Long> answersByStatus() {
        Map<String, Long> result = new TreeMap<>();
        for (Recorder.Attempt a : recorder.attempts) {
            result.merge(a.method() + " " + a.outcome() + (a.replayed() ? " replay" : ""), 1L, Long::sum);
        }
        return result;
    }

    /**
     * The {@code 409}s of POSTs by problem type: a key in flight ({@code request-in-flight}) or an
     * order refusal ({@code order-in-progress}, {@code order-already-paid}, {@code order-mismatch}).
     */
    Map<String, Long> conflictsByProblem() {
        Map<String, Long> result = new TreeMap<>();
        for (Recorder.Attempt a : recorder.attempts) {
            if (a.method().equals("POST") && a.outcome().startsWith("409")) {
                result.merge(a.outcome().startsWith("409-") ? a.outcome().substring(4) : "no problem type", 1L,
                        Long::sum);
            }
        }
        return result;
    }

    /** Per logical payment: from its first request to its first definitive answer (201/402/202 or 200 review). */
    List<Long> endToEnd() {
        return endToEnd(r -> true);
    }

    /** {@link #endToEnd()} of the payments that {@code which} selects (e.g. one tenant's). */
    List<Long> endToEnd(Predicate<Recorder.PaymentRecord> which) {
        return sinceFirstRequest(which, r -> r.firstAnswerMs);
    }

    /** Per logical payment that {@code which} selects: from its first request to its first terminal answer. */
    List<Long> toOutcome(Predicate<Recorder.PaymentRecord> which) {
        return sinceFirstRequest(which, r -> r.terminalAtMs);
    }

    private List<Long> sinceFirstRequest(Predicate<Recorder.PaymentRecord> which,
            ToLongFunction<Recorder.PaymentRecord> untilMs) {
        List<Long> result = new ArrayList<>();
        Map<Integer, Long> firstStart = new TreeMap<>();
        for (Recorder.Attempt a : recorder.attempts) {
            firstStart.merge(a.payment(), a.startMs(), Math::min);
        }
        for (Recorder.PaymentRecord r : records) {
            if (!which.test(r)) {
                continue;
            }
            Long s = firstStart.get(r.plan.index());
            long until = untilMs.applyAsLong(r);
            if (s != null && until >= 0) {
                result.add(until - s);
            }
        }
        return result;
    }

    /**
     * 202 → terminal, as the clients saw it, of the payments {@code which} selects: at the polls'
     * resolution (1 s; for a queued charge 200 ms, growing to 1 s).
     */
    List<Long> unknownToTerminal(Predicate<Recorder.PaymentRecord> which) {
        List<Long> result = new ArrayList<>();
        for (Recorder.PaymentRecord r : records) {
            if (which.test(r) && r.unknownAtMs >= 0 && r.terminalAtMs >= r.unknownAtMs) {
                result.add(r.terminalAtMs - r.unknownAtMs);
            }
        }
        return result;
    }

    /** The {@code 202}s that queued a charge: POSTs with {@code Prefer: respond-async} answered so, not replays. */
    List<Long> queued202LatencyMs() {
        return recorder.attempts.stream().filter(a -> a.respondAsync() && a.applied() && !a.replayed()
                && a.outcome().equals("202")).map(Recorder.Attempt::latencyMs).toList();
    }

    /**
     * The answers to POSTs with {@code Prefer: respond-async} by outcome: {@code 202 queued} (with
     * {@code Preference-Applied}), a replay's outcome ({@code 201 replay}), a refusal, a gateway error...
     */
    Map<String, Long> asyncAnswers() {
        Map<String, Long> result = new TreeMap<>();
        for (Recorder.Attempt a : recorder.attempts) {
            if (a.respondAsync()) {
                result.merge(a.outcome() + (a.applied() ? " queued" : "") + (a.replayed() ? " replay" : ""), 1L,
                        Long::sum);
            }
        }
        return result;
    }

    int answered() {
        return (int) records.stream().filter(r -> r.firstAnswerMs >= 0).count();
    }

    long lastFirstAnswerMs() {
        return records.stream().mapToLong(r -> r.firstAnswerMs).max().orElse(0);
    }

    int posts() {
        return records.stream().mapToInt(r -> r.posts.get()).sum();
    }

    int submitters() {
        return records.stream().mapToInt(r -> r.plan.submitters()).sum();
    }

    int polls() {
        return records.stream().mapToInt(r -> r.polls.get()).sum();
    }

    long count(String outcome) {
        return recorder.attempts.stream().filter(a -> a.outcome().equals(outcome)).count();
    }

    /** Intervals in which clients were answered "503, circuit breaker open": [from, to] ms. */
    List<long[]> breakerOpenIntervals() {
        List<Long> times = recorder.attempts.stream().filter(a -> a.outcome().equals("503-breaker"))
                .map(a -> a.startMs() + a.latencyMs()).sorted().toList();
        List<long[]> intervals = new ArrayList<>();
        for (long t : times) {
            if (!intervals.isEmpty() && t - intervals.get(intervals.size() - 1)[1] <= 3000) {
                intervals.get(intervals.size() - 1)[1] = t;
            } else {
                intervals.add(new long[] {t, t});
            }
        }
        return intervals;
    }

    /** The first fresh 201 after {@code ms}, or -1. */
    long firstSuccessAfter(long ms) {
        return recorder.attempts.stream().filter(a -> a.outcome().equals("201") && !a.replayed())
                .mapToLong(a -> a.startMs() + a.latencyMs()).filter(t -> t > ms).min().orElse(-1);
    }

    static long percentile(Collection<Long> values, double p) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = values.stream().sorted().toList();
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }
}
