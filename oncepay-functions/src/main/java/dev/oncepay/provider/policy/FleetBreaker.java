package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.BreakerItems.Fleet;
import dev.oncepay.provider.policy.FleetProtection.Limits;
import dev.oncepay.provider.policy.FleetProtection.Settings;
import dev.oncepay.provider.spi.ProviderOperation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * One circuit breaker per provider account and operation for the whole fleet (design rule 14). It
 * opens on a failure ratio or a slow-call ratio over the fleet's newest calls (SmallRye's
 * {@code failureRatio}/{@code requestVolumeThreshold}, Resilience4j's slow-call rate), and lets one
 * probe through per open period; a probe that answers, however slowly, closes it.
 *
 * <p>Counting costs no write per call: a sandbox counts its calls in memory and adds them to its
 * {@link BreakerShard} once per {@code breaker-cache} period, and at once after a failed or slow
 * call (with what it counted before it). That write returns the shard, which is also the
 * sandbox's read of the breaker. When a sandbox's write adds a failed (or slow) call to a shard
 * second that holds few calls, or takes its failed calls past a power of two, it reads the
 * primary item and every shard (one BatchGetItem), sums the window, and opens the breaker if a
 * ratio calls for it: so the fleet's evaluations stay a few dozen per shard per second however
 * many fail.
 *
 * <p>Every transition is one conditional UpdateItem on the primary {@link BreakerItem}, so exactly
 * one writer opens it, exactly one sandbox holds the probe (a lease another may take over once it
 * ends), and the probe's answer closes or re-opens it; the writer then copies the new state to
 * every shard. Only one sandbox per shard asks the primary for the probe. When the store fails,
 * this sandbox's {@link LocalBreaker} decides.
 */
final class FleetBreaker {
    private static final Logger LOG = Logger.getLogger(FleetBreaker.class);

    /** Leave to make one attempt; a probe's answer decides the breaker for everyone. */
    public record Admission(String pk, String probeOwner, boolean decidedLocally) {
        boolean probe() {
            return probeOwner != null;
        }
    }

    /** Calls counted, to be added to a shard's ring slot of the second {@code at} falls in. */
    private record Counted(Instant at, CallCounts counts) {
        long second() {
            return at.getEpochSecond();
        }
    }

    /**
     * Calls this sandbox counted for one breaker and not yet added to its shard. They go to the
     * second they are added in, except that a failed or slow call that took longer than a cache
     * period (it hung) keeps apart what was counted before it: that goes to the second it began,
     * so a hung fleet's old successes do not thin out the failures of its newest second. (A quick
     * failure does not: other sandboxes' successes of the same seconds reach the shards up to a
     * period late, and older successes stand in for them.)
     */
    private static final class Pending {
        private final Duration settled;
        private CallCounts counts = CallCounts.NONE;
        private Instant since;
        private CallCounts earlier = CallCounts.NONE;
        private Instant earlierSince;

        Pending(Duration settled) {
            this.settled = settled;
        }

        synchronized void add(CallCounts more, Instant at, Duration took) {
            if (more.failed() + more.slow() > 0 && took.compareTo(settled) > 0 && !counts.isEmpty()) {
                if (earlier.isEmpty()) {
                    earlierSince = since;
                }
                earlier = earlier.plus(counts);
                counts = CallCounts.NONE;
            }
            if (counts.isEmpty()) {
                since = at;
            }
            counts = counts.plus(more);
        }

        /** The counts by second, oldest first; those that began longer than {@code window} ago (an idle sandbox's) are dropped. */
        synchronized List<Counted> take(Instant now, Duration window) {
            Instant oldest = now.minus(window);
            List<Counted> taken = new ArrayList<>(2);
            if (!earlier.isEmpty() && !earlierSince.isBefore(oldest)) {
                taken.add(new Counted(earlierSince, earlier));
            }
            if (!counts.isEmpty() && !since.isBefore(oldest)) {
                taken.add(new Counted(now, counts));
            }
            earlier = CallCounts.NONE;
            counts = CallCounts.NONE;
            return taken;
        }

        synchronized boolean isEmpty() {
            return counts.isEmpty() && earlier.isEmpty();
        }
    }

    private final BreakerItems items;
    private final LocalBreaker local;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final Settings settings;
    private final ToIntFunction<ProviderOperation> shard;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    FleetBreaker(BreakerItems items, LocalBreaker local, Clock clock, EmbeddedMetrics metrics, Settings settings,
            ToIntFunction<ProviderOperation> shard) {
        this.items = items;
        this.local = local;
        this.clock = clock;
        this.metrics = metrics;
        this.settings = settings;
        this.shard = shard;
    }

    /**
     * Leave for one attempt: a plain call while closed, the probe if this caller takes the lease.
     *
     * @throws CircuitBreakerOpenException the breaker refuses the attempt; nothing was sent
     */
    Admission admit(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        String shardPk = BreakerShard.pk(pk, shard.applyAsInt(operation));
        Limits limits = settings.limits(operation);
        Optional<BreakerShard> copy = current(account, operation, pk, shardPk, limits);
        Instant now = clock.instant();
        if (copy.isEmpty()) {
            if (local.refuses(pk, now)) {
                throw refused(account, operation, "open in this sandbox, whose fleet breaker could not be read");
            }
            return new Admission(pk, null, true);
        }
        BreakerShard seen = copy.get();
        if (seen.breaker().state() == BreakerState.CLOSED) {
            return new Admission(pk, null, false);
        }
        if (seen.refuses(now, limits.openFor())) {
            throw refused(account, operation, seen.breaker().state().name());
        }
        return takeProbe(account, operation, pk, shardPk, seen, limits, now);
    }

    /**
     * Whether the breaker refuses a call right now, as this sandbox's copy of its shard says: open,
     * or another sandbox probes (or, the store unreadable, this sandbox's own calls say so).
     */
    boolean refuses(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        Limits limits = settings.limits(operation);
        Optional<BreakerShard> copy = current(account, operation, pk,
                BreakerShard.pk(pk, shard.applyAsInt(operation)), limits);
        Instant now = clock.instant();
        return copy.isEmpty() ? local.refuses(pk, now) : copy.get().refuses(now, limits.openFor());
    }

    /**
     * This sandbox's copy of its shard, at most a cache period old. Once it is older, the calls
     * counted since are added to the shard, and that write is the period's read: one request, not
     * two, and counts that reach the shard within a period of their calls.
     */
    private Optional<BreakerShard> current(ProviderAccount account, ProviderOperation operation, String pk,
            String shardPk, Limits limits) {
        if (!items.isFresh(shardPk) && !pendingOf(pk).isEmpty()) {
            flush(account, operation, pk, shardPk, limits);
        }
        return items.shard(shardPk);
    }

    /**
     * What an admitted attempt came to: counted (a failure, a slow answer, or a success), and a
     * probe's answer closes or re-opens the breaker.
     *
     * @param failure why the attempt failed, or {@code null} if the provider answered
     */
    void record(ProviderAccount account, ProviderOperation operation, Admission admission, String failure,
            Duration took) {
        Limits limits = settings.limits(operation);
        boolean failed = failure != null;
        boolean slow = !failed && took.compareTo(limits.slowCall()) > 0;
        local.record(admission.pk(), failed, clock.instant(), limits);
        if (admission.probe()) {
            probeAnswered(account, operation, admission, failure, took);
            return;
        }
        pendingOf(admission.pk()).add(new CallCounts(1, failed ? 1 : 0, slow ? 1 : 0), clock.instant(), took);
        String shardPk = BreakerShard.pk(admission.pk(), shard.applyAsInt(operation));
        if (!admission.decidedLocally() && (failed || slow || !items.isFresh(shardPk))) {
            flush(account, operation, admission.pk(), shardPk, limits);
        }
    }

    /** Forgets the counts not yet added: after a SnapStart restore they are another time's. */
    void forgetCounts() {
        pending.clear();
    }

    // --- counting ---------------------------------------------------------------------------------

    private Pending pendingOf(String pk) {
        return pending.computeIfAbsent(pk, k -> new Pending(settings.cacheFor()));
    }

    /**
     * Adds what this sandbox counted to its shard, by second (one write; two when a failure kept
     * older counts apart), and evaluates the window when the newest second's counts call for it.
     */
    private void flush(ProviderAccount account, ProviderOperation operation, String pk, String shardPk, Limits limits) {
        Pending mine = pendingOf(pk);
        Instant now = clock.instant();
        List<Counted> taken = mine.take(now, limits.window());
        Optional<BreakerShard> after = Optional.empty();
        for (int i = 0; i < taken.size(); i++) {
            try {
                after = add(shardPk, taken.get(i).second(), taken.get(i).counts());
            } catch (SdkException storeFailed) {
                taken.subList(i, taken.size()).forEach(c -> mine.add(c.counts(), c.at(), Duration.ZERO));
                items.storeFailed("count calls in", shardPk, storeFailed);
                return;
            }
        }
        if (taken.isEmpty()) {
            return;
        }
        Counted newest = taken.get(taken.size() - 1);
        long second = newest.second();
        CallCounts counts = newest.counts();
        if (after.isPresent() && (callsForEvaluation(after.get().in(second), counts.failed(),
                after.get().in(second).failed(), limits)
                || callsForEvaluation(after.get().in(second), counts.slow(), after.get().in(second).slow(), limits))) {
            try {
                evaluate(account, operation, pk, shardPk, after.get(), limits);
            } catch (SdkException storeFailed) {
                // The counts are in: the next failure's evaluation reads the window again.
                items.storeFailed("evaluate the window of", pk, storeFailed);
            }
        }
    }

    /**
     * One UpdateItem adding {@code counts} to the shard's ring slot of {@code second}; a slot
     * still holding an older second is started afresh (a second write). Empty if another sandbox's
     * clock is a second ahead and took the slot for a later second: the counts are dropped.
     */
    private Optional<BreakerShard> add(String shardPk, long second, CallCounts counts) {
        int slot = BreakerShard.slot(second, settings.slots());
        Map<String, String> names = Map.of("#c", BreakerShard.CALLS + slot, "#f", BreakerShard.FAILED + slot,
                "#s", BreakerShard.SLOW + slot, "#e", BreakerShard.SECOND + slot);
        Map<String, AttributeValue> values = Map.of(":c", Attr.n(counts.calls()), ":f", Attr.n(counts.failed()),
                ":s", Attr.n(counts.slow()), ":second", Attr.n(second));
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                return Optional.of(items.updateShard(shardPk, b -> b.updateExpression("ADD #c :c, #f :f, #s :s")
                        .conditionExpression("#e = :second").expressionAttributeNames(names)
                        .expressionAttributeValues(values)));
            } catch (ConditionalCheckFailedException notThisSecond) {
                // the slot counts an older second (or none yet)
            }
            Map<String, String> freshNames = new HashMap<>(names);
            freshNames.put("#kind", Table.KIND);
            Map<String, AttributeValue> freshValues = new HashMap<>(values);
            freshValues.put(":kind", Attr.s(BreakerItem.KIND));
            try {
                return Optional.of(items.updateShard(shardPk, b -> b
                        .updateExpression("SET #c = :c, #f = :f, #s = :s, #e = :second, #kind = :kind")
                        .conditionExpression("attribute_not_exists(#e) OR #e < :second")
                        .expressionAttributeNames(freshNames).expressionAttributeValues(freshValues)));
            } catch (ConditionalCheckFailedException startedMeanwhile) {
                // another sandbox started this second's slot: add to it
            }
        }
        LOG.debugf("breaker shard %s: slot %d counts a later second; %s dropped", shardPk, slot, counts);
        return Optional.empty();
    }

    /**
     * Whether adding {@code added} failed (or slow) calls, which made the shard's second hold
     * {@code total} of them, calls for reading the fleet's window: each one while the shard's
     * second holds fewer calls than the window needs (a ratio over few calls can tip with any
     * one), then each time {@code total} passes a power of two — so at a thousand failures a
     * second a shard takes a few dozen evaluations, not one per failure.
     */
    static boolean callsForEvaluation(CallCounts shardSecond, long added, long total, Limits limits) {
        return added > 0 && (shardSecond.calls() <= limits.windowCalls()
                || Long.highestOneBit(total) != Long.highestOneBit(total - added));
    }

    /** Sums the fleet's window and opens the breaker if its failure or slow-call ratio calls for it. */
    private void evaluate(ProviderAccount account, ProviderOperation operation, String pk, String shardPk,
            BreakerShard mine, Limits limits) {
        Fleet fleet = items.fleet(pk, settings.shards(operation));
        BreakerItem decided = fleet.breaker();
        if (decided.version() > mine.breaker().version()) {
            copy(shardPk, decided); // this shard missed a transition: mend it
        }
        if (decided.state() != BreakerState.CLOSED) {
            return;
        }
        Instant now = clock.instant();
        long from = decided.windowFrom() == 0 ? Long.MIN_VALUE : Instant.ofEpochMilli(decided.windowFrom()).getEpochSecond();
        CallCounts window = CallCounts.window(fleet.shards(), now.getEpochSecond(), from, limits.windowCalls(),
                limits.windowSeconds());
        LOG.debugf("breaker %s evaluated from %s: the fleet's window holds %s", pk, shardPk, window);
        if (window.calls() < limits.minCalls()) {
            return;
        }
        // At least the minimum of failed (or slow) calls too: a sandbox's successes reach its shard up
        // to a period after its failures, so a window of a few calls can look worse than it is.
        boolean failing = window.failed() >= limits.minCalls() && window.failureRatio() >= limits.failureRatio();
        boolean slow = window.slow() >= limits.minCalls() && window.slowRatio() >= limits.slowRatio();
        if (failing || slow) {
            open(account, operation, pk, decided, String.format(Locale.ROOT,
                    "%d of the fleet's newest %d calls failed, %d slow (ratios %.2f and %.2f open it)", window.failed(),
                    window.calls(), window.slow(), limits.failureRatio(), limits.slowRatio()), limits);
        }
    }

    // --- transitions ------------------------------------------------------------------------------

    private void open(ProviderAccount account, ProviderOperation operation, String pk, BreakerItem closed, String why,
            Limits limits) {
        Instant now = clock.instant();
        try {
            BreakerItem opened = items.updatePrimary(pk, b -> b
                    .updateExpression("SET #state = :open, #version = :next, #openedAt = :now,"
                            + " #openings = if_not_exists(#openings, :zero) + :one, #kind = :kind REMOVE #owner, #until")
                    .conditionExpression("attribute_not_exists(#version) OR (#version = :version AND #state = :closed)")
                    .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#version", BreakerItem.VERSION,
                            "#openedAt", BreakerItem.OPENED_AT, "#openings", BreakerItem.OPENINGS, "#kind", Table.KIND,
                            "#owner", BreakerItem.PROBE_OWNER, "#until", BreakerItem.PROBE_UNTIL))
                    .expressionAttributeValues(Map.of(":open", Attr.s(BreakerState.OPEN.name()),
                            ":closed", Attr.s(BreakerState.CLOSED.name()), ":now", Attr.n(now.toEpochMilli()),
                            ":zero", Attr.n(0), ":one", Attr.n(1), ":version", Attr.n(closed.version()),
                            ":next", Attr.n(closed.version() + 1), ":kind", Attr.s(BreakerItem.KIND))));
            transition(account, operation, BreakerState.CLOSED, BreakerState.OPEN, Metrics.BREAKER_OPEN,
                    why + "; open for " + limits.openFor() + "; openings=" + opened.openings());
            copyToEveryShard(operation, pk, opened);
        } catch (ConditionalCheckFailedException openedByAnother) {
            // Another sandbox's evaluation made the transition: learn it now, not at its copy.
            String shardPk = BreakerShard.pk(pk, shard.applyAsInt(operation));
            BreakerItem decided = items.primary(pk);
            if (decided.version() > closed.version()) {
                copy(shardPk, decided);
            }
        }
    }

    private Admission takeProbe(ProviderAccount account, ProviderOperation operation, String pk, String shardPk,
            BreakerShard seen, Limits limits, Instant now) {
        long until = now.plus(limits.probeLease()).toEpochMilli();
        try {
            // One sandbox per shard asks the primary: a claim on this shard first.
            items.updateShard(shardPk, b -> b.updateExpression("SET #until = :until")
                    .conditionExpression("#version = :version AND (attribute_not_exists(#until) OR #until < :now)")
                    .expressionAttributeNames(Map.of("#until", BreakerItem.PROBE_UNTIL, "#version", BreakerItem.VERSION))
                    .expressionAttributeValues(Map.of(":until", Attr.n(until), ":now", Attr.n(now.toEpochMilli()),
                            ":version", Attr.n(seen.breaker().version()))));
        } catch (ConditionalCheckFailedException claimedOrMoved) {
            // Another sandbox of this shard claimed the probe, or the shard has a newer transition
            // (the breaker closed): read it again, and go through if it closed.
            if (rereadQuietly(shardPk).filter(current -> current.breaker().state() == BreakerState.CLOSED).isPresent()) {
                return new Admission(pk, null, false);
            }
            throw refused(account, operation, "probing from another sandbox");
        } catch (SdkException storeFailed) {
            items.storeFailed("claim the probe in", shardPk, storeFailed);
            throw refused(account, operation, "open; the probe could not be claimed");
        }
        String owner = UUID.randomUUID().toString();
        try {
            BreakerItem taken = items.updatePrimary(pk, b -> b
                    .updateExpression("SET #state = :half, #owner = :owner, #until = :until")
                    .conditionExpression("(#state = :open AND #openedAt <= :openedBefore)"
                            + " OR (#state = :half AND #until < :now)")
                    .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#owner", BreakerItem.PROBE_OWNER,
                            "#until", BreakerItem.PROBE_UNTIL, "#openedAt", BreakerItem.OPENED_AT))
                    .expressionAttributeValues(Map.of(":half", Attr.s(BreakerState.HALF_OPEN.name()),
                            ":open", Attr.s(BreakerState.OPEN.name()), ":owner", Attr.s(owner), ":until", Attr.n(until),
                            ":now", Attr.n(now.toEpochMilli()),
                            ":openedBefore", Attr.n(now.minus(limits.openFor()).toEpochMilli()))));
            transition(account, operation, BreakerState.OPEN, BreakerState.HALF_OPEN, Metrics.BREAKER_HALF_OPEN,
                    "probe lease until " + Instant.ofEpochMilli(until) + "; openings=" + taken.openings());
            return new Admission(pk, owner, false);
        } catch (ConditionalCheckFailedException notOpenOrProbing) {
            return afterLostProbe(account, operation, pk, shardPk, seen);
        } catch (SdkException storeFailed) {
            items.storeFailed("take the probe lease of", pk, storeFailed);
            throw refused(account, operation, "open; the probe could not be taken");
        }
    }

    /**
     * The primary refused the probe: another sandbox holds it, or the breaker closed and this
     * shard's copy missed it (then mended, and the call goes through).
     */
    private Admission afterLostProbe(ProviderAccount account, ProviderOperation operation, String pk, String shardPk,
            BreakerShard seen) {
        BreakerItem decided;
        try {
            decided = items.primary(pk);
        } catch (SdkException storeFailed) {
            items.storeFailed("re-read", pk, storeFailed);
            throw refused(account, operation, "open; another sandbox probes");
        }
        if (decided.version() > seen.breaker().version()) {
            copy(shardPk, decided);
        }
        if (decided.state() == BreakerState.CLOSED) {
            return new Admission(pk, null, false);
        }
        throw refused(account, operation, decided.state() + "; another sandbox probes");
    }

    private void probeAnswered(ProviderAccount account, ProviderOperation operation, Admission probe, String failure,
            Duration took) {
        Instant now = clock.instant();
        boolean failed = failure != null;
        Map<String, String> names = new HashMap<>(Map.of("#state", BreakerItem.STATE, "#version", BreakerItem.VERSION,
                "#owner", BreakerItem.PROBE_OWNER, "#until", BreakerItem.PROBE_UNTIL));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":half", Attr.s(BreakerState.HALF_OPEN.name()),
                ":owner", Attr.s(probe.probeOwner()), ":now", Attr.n(now.toEpochMilli()), ":one", Attr.n(1),
                ":zero", Attr.n(0)));
        if (failed) {
            names.put("#openedAt", BreakerItem.OPENED_AT);
            names.put("#openings", BreakerItem.OPENINGS);
            values.put(":open", Attr.s(BreakerState.OPEN.name()));
        } else {
            names.put("#windowFrom", BreakerItem.WINDOW_FROM);
            values.put(":closed", Attr.s(BreakerState.CLOSED.name()));
        }
        try {
            BreakerItem after = items.updatePrimary(probe.pk(), b -> b
                    .updateExpression((failed
                            ? "SET #state = :open, #openedAt = :now, #openings = #openings + :one"
                            : "SET #state = :closed, #windowFrom = :now")
                            + ", #version = if_not_exists(#version, :zero) + :one REMOVE #owner, #until")
                    // Only the lease holder decides; one whose lease was taken over has no say.
                    .conditionExpression("#state = :half AND #owner = :owner")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            if (failed) {
                transition(account, operation, BreakerState.HALF_OPEN, BreakerState.OPEN, Metrics.BREAKER_REOPEN,
                        "probe failed after " + took.toMillis() + " ms: " + failure + "; openings=" + after.openings());
            } else {
                transition(account, operation, BreakerState.HALF_OPEN, BreakerState.CLOSED, Metrics.BREAKER_CLOSED,
                        "probe answered in " + took.toMillis() + " ms; open period " + after.openings() + " ends");
            }
            copyToEveryShard(operation, probe.pk(), after);
        } catch (ConditionalCheckFailedException leaseLost) {
            LOG.warnf("breaker account=%s operation=%s: the probe's lease was taken over before its answer (%s)",
                    account, operation.id(), failed ? failure : "ok");
        } catch (SdkException storeFailed) {
            items.storeFailed("record the probe's answer in", probe.pk(), storeFailed);
        }
    }

    /** Copies a transition to every shard; a shard it cannot reach is mended by its next evaluation or probe. */
    private void copyToEveryShard(ProviderOperation operation, String pk, BreakerItem decided) {
        for (int k = 0; k < settings.shards(operation); k++) {
            copy(BreakerShard.pk(pk, k), decided);
        }
    }

    /** Writes {@code decided} into a shard's copy, unless the copy is as new or newer; this sandbox's copy of the shard learns it either way. */
    private void copy(String shardPk, BreakerItem decided) {
        try {
            items.updateShard(shardPk, b -> b
                    .updateExpression("SET #state = :state, #version = :version, #openedAt = :openedAt,"
                            + " #openings = :openings, #windowFrom = :windowFrom, #kind = :kind REMOVE #until")
                    .conditionExpression("attribute_not_exists(#version) OR #version < :version")
                    .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#version", BreakerItem.VERSION,
                            "#openedAt", BreakerItem.OPENED_AT, "#openings", BreakerItem.OPENINGS,
                            "#windowFrom", BreakerItem.WINDOW_FROM, "#kind", Table.KIND, "#until", BreakerItem.PROBE_UNTIL))
                    .expressionAttributeValues(Map.of(":state", Attr.s(decided.asShardCopy().state().name()),
                            ":version", Attr.n(decided.version()),
                            ":openedAt", Attr.n(decided.openedAt()), ":openings", Attr.n(decided.openings()),
                            ":windowFrom", Attr.n(decided.windowFrom()), ":kind", Attr.s(BreakerItem.KIND))));
        } catch (ConditionalCheckFailedException asNewAlready) {
            // Another writer copied this transition, or a later one: what this sandbox read of the
            // shard before that copy must not admit another call.
            items.learned(shardPk, decided);
        } catch (SdkException storeFailed) {
            items.storeFailed("copy the breaker's state to", shardPk, storeFailed);
        }
    }

    private Optional<BreakerShard> rereadQuietly(String shardPk) {
        try {
            return Optional.of(items.rereadShard(shardPk));
        } catch (SdkException storeFailed) {
            items.storeFailed("re-read", shardPk, storeFailed);
            return Optional.empty();
        }
    }

    private CircuitBreakerOpenException refused(ProviderAccount account, ProviderOperation operation, String state) {
        return new CircuitBreakerOpenException("circuit breaker open: " + operation.id() + " breaker of " + account
                + " is " + state);
    }

    private void transition(ProviderAccount account, ProviderOperation operation, BreakerState from,
            BreakerState to, String metric, String counts) {
        metrics.count(metric);
        LOG.warnf("breaker transition %s -> %s account=%s operation=%s: %s", from, to, account, operation.id(), counts);
    }
}
