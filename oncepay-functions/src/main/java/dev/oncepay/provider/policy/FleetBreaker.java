package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Metrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.config.ProviderCallConfig;
import dev.oncepay.config.ProviderConfig;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.provider.spi.ProviderRefusal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * One circuit breaker per provider account and operation for the whole fleet (design rule 14):
 * its state is one item in the table ({@link BreakerItem}), and every transition is one
 * conditional UpdateItem on it, so exactly one writer opens it, exactly one sandbox holds the
 * half-open probe (a lease that another may take over once it ends), and the probe's answer
 * closes or re-opens it for everyone.
 *
 * <p>Cost: a sandbox reads the item at most once per {@code breaker-cache} period per breaker
 * (its own writes refresh that copy); a healthy call writes nothing. Failures are counted, not a
 * ratio: a ratio would need a write for every successful call too. A failed or slow call costs
 * one write (plus one for the writer that opens it); so does a probe, and a retry's token.
 *
 * <p>The breaker never stops a healthy provider being called: when its own storage fails it
 * admits the call (fail open), counts {@link Metrics#BREAKER_STORE_FAILED} and logs it.
 *
 * <p>The retry budget rides on the same item: each sandbox earns {@code share} of a retry per
 * call it makes, in memory, and hands what it earned to the item only when it wants a retry, in
 * the same conditional write that takes one token. So retries fleet-wide stay near {@code share}
 * of the calls (plus a burst), at no cost while nothing is retried.
 *
 * <p>So does the bulkhead ({@link #enter}): a map of the calls in flight, each a slot with a
 * lease, counted from the copy the breaker reads anyway. A quick call costs nothing; a slow one
 * two writes (take, give back). The cap is approximate only when an account turns slow: calls
 * younger than {@code in-flight-after}, and slots taken within a sandbox's {@code breaker-cache},
 * are not yet seen by the others.
 */
@ApplicationScoped
public class FleetBreaker {
    private static final Logger LOG = Logger.getLogger(FleetBreaker.class);
    /** Thousandths of a retry: tokens are whole numbers in the item. */
    private static final long ONE_RETRY = 1000;
    /**
     * The longest any request about a breaker may take, SDK retries included. The table answers in
     * milliseconds; a breaker that waited the store's full timeout (3 s) would add that to every
     * call while the store is sick, so it gives up early and fails open.
     */
    private static final Duration STORE_TIMEOUT = Duration.ofMillis(500);
    /** A window or state that changes under a failure count: count again, a few times at most. */
    private static final int COUNT_ATTEMPTS = 3;

    /** How one operation's breaker trips and probes, and how many of its calls may be in flight. */
    record Limits(int failures, Duration window, Duration openFor, Duration slowCall, Duration probeLease,
            int maxInFlight, Duration slotLease) {
        static Limits of(ProviderCallConfig call) {
            // A probe is one attempt, a slot one whole call: each lease outlives what it covers, so
            // a live holder keeps it and a dead one's ends soon after.
            return new Limits(call.breakerFailures(), call.breakerWindow(), call.breakerDelay(), call.slowCall(),
                    call.attemptTimeout().plusSeconds(1), call.maxInFlight(), call.budget().plusSeconds(1));
        }
    }

    /** Every breaker's limits, how long a sandbox trusts a read, the retry budget, and when a call takes a slot. */
    record Settings(Map<ProviderOperation, Limits> limits, Duration cacheFor, double retryShare, int retryBurst,
            Duration inFlightAfter) {
        static Settings of(ProviderConfig provider) {
            Map<ProviderOperation, Limits> limits = new EnumMap<>(ProviderOperation.class);
            limits.put(ProviderOperation.CHARGE, Limits.of(provider.chargeCall()));
            limits.put(ProviderOperation.LOOKUP, Limits.of(provider.lookupCall()));
            return new Settings(limits, provider.breakerCache(), provider.retryBudget().share(),
                    provider.retryBudget().burst(), provider.inFlightAfter());
        }
    }

    /** Leave to make one attempt; a probe's answer decides the breaker for everyone. */
    public record Admission(String pk, String probeOwner) {
        boolean probe() {
            return probeOwner != null;
        }
    }

    private record Cached(BreakerItem item, Instant readAt) {
    }

    private final DynamoDbClient dynamo;
    private final String table;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final Settings settings;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    /** Thousandths of a retry this sandbox earned by calls, per breaker, not yet handed to the item. */
    private final Map<String, AtomicLong> earned = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService slotTaker;

    @Inject
    public FleetBreaker(DynamoDbClient dynamo, OncepayConfig config, Clock clock, EmbeddedMetrics metrics) {
        this(dynamo, config.table(), clock, metrics, Settings.of(config.provider()));
    }

    FleetBreaker(DynamoDbClient dynamo, String table, Clock clock, EmbeddedMetrics metrics, Settings settings) {
        this.dynamo = dynamo;
        this.table = table;
        this.clock = clock;
        this.metrics = metrics;
        this.settings = settings;
    }

    /**
     * Why a call would be refused right now, read from this sandbox's copy (no write): the breaker
     * is open or another sandbox probes, or the account has its cap of calls in flight.
     */
    public Optional<ProviderRefusal> refusal(ProviderAccount account, ProviderOperation operation) {
        Instant now = clock.instant();
        Limits limits = limits(operation);
        BreakerItem item = current(BreakerItem.pk(account, operation));
        if (item.refuses(now, limits.openFor())) {
            return Optional.of(ProviderRefusal.BREAKER_OPEN);
        }
        if (item.inFlightAt(now) >= limits.maxInFlight()) {
            return Optional.of(ProviderRefusal.AT_CAPACITY); // counted by the caller that acts on it
        }
        return Optional.empty();
    }

    /**
     * Enters the account's bulkhead for one whole call (all its attempts): refused if the account
     * already has its cap of calls in flight, fleet-wide. While the account is quick (no slot
     * held), a call takes a slot only once it is still in flight after {@code in-flight-after}, so
     * healthy calls write nothing. While it is slow (some slot held), a call takes its slot at
     * once with a write conditional on the cap, so callers arriving together cannot overshoot it.
     * Close the slot when the call ends, however it ends.
     *
     * @throws BulkheadException the account is at capacity; nothing was sent
     */
    InFlight enter(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        Limits limits = limits(operation);
        Instant now = clock.instant();
        long inFlight = current(pk).inFlightAt(now);
        String slot = UUID.randomUUID().toString();
        if (inFlight > 0 && inFlight < limits.maxInFlight()) {
            // The account is slow right now: this call counts from its start, against the cap, in
            // one conditional write, so callers arriving together cannot all slip under it.
            Optional<Boolean> taken = takeSlot(pk, slot, limits, true);
            if (taken.isPresent()) {
                InFlight call = new InFlight(pk, slot);
                call.decided(taken.get());
                return call;
            }
            inFlight = current(pk).inFlightAt(now);
        }
        if (inFlight >= limits.maxInFlight()) {
            metrics.count(Metrics.PROVIDER_AT_CAPACITY);
            throw new BulkheadException(ProviderRefusal.AT_CAPACITY.detail() + ": " + inFlight + " of "
                    + limits.maxInFlight() + " " + operation.id() + " calls to " + account);
        }
        InFlight call = new InFlight(pk, slot);
        call.timer = slots().schedule(() -> call.takeUnlessEnded(() -> takeSlot(pk, slot, limits, false).orElse(false)),
                settings.inFlightAfter().toMillis(), TimeUnit.MILLISECONDS);
        return call;
    }

    /** One call's place in its account's bulkhead; closing it gives back the slot, if the call took one. */
    final class InFlight implements AutoCloseable {
        private final String pk;
        private final String slot;
        /** Set once: by the timer as it starts taking the slot, or by the call ending first. */
        private final AtomicBoolean decided = new AtomicBoolean();
        private final CompletableFuture<Boolean> taken = new CompletableFuture<>();
        private volatile ScheduledFuture<?> timer;

        private InFlight(String pk, String slot) {
            this.pk = pk;
            this.slot = slot;
        }

        /** Taken (or not) at entry. */
        private void decided(boolean held) {
            decided.set(true);
            taken.complete(held);
        }

        /** The timer: take the slot, unless the call ended meanwhile. */
        private void takeUnlessEnded(BooleanSupplier take) {
            if (!decided.compareAndSet(false, true)) {
                return;
            }
            try {
                taken.complete(take.getAsBoolean());
            } catch (RuntimeException unexpected) {
                taken.complete(false);
                LOG.warnf("bulkhead slot %s of %s: taking it failed (%s); its lease ends it", slot, pk, unexpected);
            }
        }

        @Override
        public void close() {
            if (decided.compareAndSet(false, true)) {
                // Quicker than in-flight-after: never counted, nothing to give back. (A future's
                // cancel cannot say this: it succeeds even while the task is already writing.)
                if (timer != null) {
                    timer.cancel(false);
                }
                return;
            }
            // A timed-out attempt may leave this thread interrupted; giving the slot back must not fail for it.
            boolean interrupted = Thread.interrupted();
            try {
                if (taken.get(STORE_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS)) {
                    giveSlotBack(pk, slot);
                }
            } catch (InterruptedException | ExecutionException | TimeoutException notTaken) {
                LOG.warnf("bulkhead slot %s of %s: unknown whether it was taken (%s); its lease ends it", slot, pk,
                        notTaken.toString());
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * Leave for one attempt: a plain call while closed, the probe if this caller takes the lease.
     *
     * @param retry whether the attempt follows a failed one of the same call (only first attempts earn retry tokens)
     * @throws CircuitBreakerOpenException the breaker refuses the attempt; nothing was sent
     */
    Admission admit(ProviderAccount account, ProviderOperation operation, boolean retry) {
        String pk = BreakerItem.pk(account, operation);
        Limits limits = limits(operation);
        if (!retry) {
            long perCall = Math.round(settings.retryShare() * ONE_RETRY);
            long cap = settings.retryBurst() * ONE_RETRY;
            earned.computeIfAbsent(pk, k -> new AtomicLong()).updateAndGet(e -> Math.min(cap, e + perCall));
        }
        Instant now = clock.instant();
        BreakerItem item = current(pk);
        if (item.state() == BreakerState.CLOSED) {
            return new Admission(pk, null);
        }
        if (item.refuses(now, limits.openFor())) {
            throw refused(account, operation, item);
        }
        return takeProbe(account, operation, pk, limits, now);
    }

    /**
     * What an admitted attempt came to. A failure or a slow success counts against the breaker;
     * a probe's answer closes or re-opens it.
     *
     * @param failure why the attempt failed, or {@code null} if the provider answered
     */
    void record(ProviderAccount account, ProviderOperation operation, Admission admission, String failure,
            Duration took) {
        Limits limits = limits(operation);
        String why = failure != null ? failure
                : took.compareTo(limits.slowCall()) > 0
                        ? "slow: " + took.toMillis() + " ms > " + limits.slowCall().toMillis() + " ms" : null;
        try {
            if (admission.probe()) {
                probeAnswered(account, operation, admission, why, took);
            } else if (why != null) {
                countFailure(account, operation, admission.pk(), limits);
            }
        } catch (SdkException storeFailed) {
            storeFailed("record a " + (why == null ? "success" : "failure") + " in", admission.pk(), storeFailed);
        }
    }

    /**
     * Takes one retry from the account's budget, handing over the share this sandbox earned since
     * it last did; {@code false} if the budget is spent (then the call is not retried).
     */
    boolean mayRetry(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        AtomicLong mine = earned.computeIfAbsent(pk, k -> new AtomicLong());
        long handed = mine.getAndSet(0);
        long burst = settings.retryBurst() * ONE_RETRY;
        try {
            // Hand over what this sandbox earned, unless that would fill the bucket past its burst.
            if (takeToken(pk, handed - ONE_RETRY, "attribute_not_exists(#tokens)"
                    + " OR (#tokens >= :needed AND #tokens <= :room)", Map.of(":needed", Attr.n(ONE_RETRY - handed),
                            ":room", Attr.n(burst - handed + ONE_RETRY)))) {
                return true;
            }
            if (handed > 0 && takeToken(pk, -ONE_RETRY, "#tokens >= :needed", Map.of(":needed", Attr.n(ONE_RETRY)))) {
                return true; // the bucket is full: what this sandbox earned is not needed
            }
            mine.addAndGet(handed); // spent: keep the earnings for the next try
            metrics.count(Metrics.RETRY_BUDGET_SPENT);
            LOG.warnf("retry budget spent for account=%s operation=%s: a retryable fault ends the call", account,
                    operation.id());
            return false;
        } catch (SdkException storeFailed) {
            mine.addAndGet(handed);
            storeFailed("take a retry token from", pk, storeFailed);
            return true;
        }
    }

    /**
     * Forgets what this sandbox read and earned; the next call reads the store. Returns the breakers
     * it had read. After a SnapStart restore (the copy in the snapshot is of another time) and in tests.
     */
    public Set<String> forgetReads() {
        Set<String> known = Set.copyOf(cache.keySet());
        cache.clear();
        earned.clear();
        return known;
    }

    // --- transitions ------------------------------------------------------------------------------

    private Admission takeProbe(ProviderAccount account, ProviderOperation operation, String pk, Limits limits,
            Instant now) {
        String owner = UUID.randomUUID().toString();
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":half", Attr.s(BreakerState.HALF_OPEN.name()));
        values.put(":open", Attr.s(BreakerState.OPEN.name()));
        values.put(":owner", Attr.s(owner));
        values.put(":until", Attr.n(now.plus(limits.probeLease()).toEpochMilli()));
        values.put(":now", Attr.n(now.toEpochMilli()));
        values.put(":openedBefore", Attr.n(now.minus(limits.openFor()).toEpochMilli()));
        BreakerItem before = current(pk);
        try {
            BreakerItem taken = update(pk, b -> b
                    .updateExpression("SET #state = :half, #owner = :owner, #until = :until")
                    .conditionExpression("(#state = :open AND #openedAt <= :openedBefore)"
                            + " OR (#state = :half AND #until < :now)")
                    .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#owner", BreakerItem.PROBE_OWNER,
                            "#until", BreakerItem.PROBE_UNTIL, "#openedAt", BreakerItem.OPENED_AT))
                    .expressionAttributeValues(values));
            if (before.state() == BreakerState.OPEN) {
                transition(account, operation, BreakerState.OPEN, BreakerState.HALF_OPEN, Metrics.BREAKER_HALF_OPEN,
                        "opened at " + Instant.ofEpochMilli(taken.openedAt()) + ", " + limits.openFor() + " ago or more;"
                                + " probe lease until " + Instant.ofEpochMilli(taken.probeUntil()) + "; openings="
                                + taken.openings());
            } else {
                LOG.warnf("breaker account=%s operation=%s: probe lease taken over (the holder's ended at %s)", account,
                        operation.id(), Instant.ofEpochMilli(before.probeUntil()));
            }
            return new Admission(pk, owner);
        } catch (ConditionalCheckFailedException anotherProbes) {
            throw refused(account, operation, reread(pk));
        } catch (SdkException storeFailed) {
            storeFailed("take the probe lease of", pk, storeFailed);
            return new Admission(pk, null);
        }
    }

    private void probeAnswered(ProviderAccount account, ProviderOperation operation, Admission probe, String failure,
            Duration took) {
        Instant now = clock.instant();
        boolean failed = failure != null;
        Map<String, String> names = new HashMap<>(Map.of("#state", BreakerItem.STATE,
                "#owner", BreakerItem.PROBE_OWNER, "#until", BreakerItem.PROBE_UNTIL));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":half", Attr.s(BreakerState.HALF_OPEN.name()),
                ":owner", Attr.s(probe.probeOwner()), ":now", Attr.n(now.toEpochMilli())));
        if (failed) {
            names.put("#openedAt", BreakerItem.OPENED_AT);
            names.put("#openings", BreakerItem.OPENINGS);
            values.put(":open", Attr.s(BreakerState.OPEN.name()));
            values.put(":one", Attr.n(1));
        } else {
            names.put("#failures", BreakerItem.FAILURES);
            names.put("#windowStart", BreakerItem.WINDOW_START);
            values.put(":closed", Attr.s(BreakerState.CLOSED.name()));
            values.put(":zero", Attr.n(0));
        }
        try {
            BreakerItem after = update(probe.pk(), b -> b
                    .updateExpression(failed
                            ? "SET #state = :open, #openedAt = :now, #openings = #openings + :one REMOVE #owner, #until"
                            : "SET #state = :closed, #failures = :zero, #windowStart = :now REMOVE #owner, #until")
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
        } catch (ConditionalCheckFailedException leaseLost) {
            LOG.warnf("breaker account=%s operation=%s: the probe's lease was taken over before its answer (%s)",
                    account, operation.id(), failed ? failure : "ok");
            reread(probe.pk());
        }
    }

    /** Counts one failure in the window (a new window if the last one ended), and opens at the threshold. */
    private void countFailure(ProviderAccount account, ProviderOperation operation, String pk, Limits limits) {
        for (int attempt = 1; attempt <= COUNT_ATTEMPTS; attempt++) {
            Instant now = clock.instant();
            Map<String, String> names = Map.of("#state", BreakerItem.STATE, "#failures", BreakerItem.FAILURES,
                    "#windowStart", BreakerItem.WINDOW_START);
            Map<String, AttributeValue> values = Map.of(":closed", Attr.s(BreakerState.CLOSED.name()),
                    ":one", Attr.n(1), ":floor", Attr.n(now.minus(limits.window()).toEpochMilli()));
            try {
                BreakerItem counted = update(pk, b -> b.updateExpression("ADD #failures :one")
                        .conditionExpression("#state = :closed AND #windowStart > :floor")
                        .expressionAttributeNames(names).expressionAttributeValues(values));
                openAtThreshold(account, operation, pk, limits, counted);
                return;
            } catch (ConditionalCheckFailedException noLiveWindow) {
                // no window yet, the window ended, or the breaker is not closed
            }
            Map<String, AttributeValue> fresh = new HashMap<>(values);
            fresh.put(":now", Attr.n(now.toEpochMilli()));
            fresh.put(":kind", Attr.s(BreakerItem.KIND));
            try {
                BreakerItem counted = update(pk, b -> b
                        .updateExpression("SET #kind = :kind, #state = :closed, #failures = :one, #windowStart = :now")
                        .conditionExpression("attribute_not_exists(#state)"
                                + " OR (#state = :closed AND (attribute_not_exists(#windowStart) OR #windowStart <= :floor))")
                        .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#failures", BreakerItem.FAILURES,
                                "#windowStart", BreakerItem.WINDOW_START, "#kind", Table.KIND))
                        .expressionAttributeValues(fresh));
                openAtThreshold(account, operation, pk, limits, counted);
                return;
            } catch (ConditionalCheckFailedException raced) {
                if (reread(pk).state() != BreakerState.CLOSED) {
                    return; // opened meanwhile: a failure now changes nothing
                }
            }
        }
    }

    private void openAtThreshold(ProviderAccount account, ProviderOperation operation, String pk, Limits limits,
            BreakerItem counted) {
        if (counted.failures() < limits.failures()) {
            return;
        }
        Instant now = clock.instant();
        try {
            BreakerItem opened = update(pk, b -> b
                    .updateExpression("SET #state = :open, #openedAt = :now,"
                            + " #openings = if_not_exists(#openings, :zero) + :one")
                    .conditionExpression("#state = :closed AND #failures >= :threshold")
                    .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#failures", BreakerItem.FAILURES,
                            "#openedAt", BreakerItem.OPENED_AT, "#openings", BreakerItem.OPENINGS))
                    .expressionAttributeValues(Map.of(":open", Attr.s(BreakerState.OPEN.name()),
                            ":closed", Attr.s(BreakerState.CLOSED.name()), ":now", Attr.n(now.toEpochMilli()),
                            ":zero", Attr.n(0), ":one", Attr.n(1), ":threshold", Attr.n(limits.failures()))));
            transition(account, operation, BreakerState.CLOSED, BreakerState.OPEN, Metrics.BREAKER_OPEN,
                    "failures=" + counted.failures() + " since " + Instant.ofEpochMilli(counted.windowStart())
                            + " (threshold " + limits.failures() + " within " + limits.window() + "); open for "
                            + limits.openFor() + "; openings=" + opened.openings());
        } catch (ConditionalCheckFailedException openedByAnother) {
            reread(pk);
        }
    }

    private boolean takeToken(String pk, long delta, String condition, Map<String, AttributeValue> extra) {
        Map<String, AttributeValue> values = new HashMap<>(extra);
        values.put(":delta", Attr.n(delta));
        values.put(":burst", Attr.n(settings.retryBurst() * ONE_RETRY));
        values.put(":closed", Attr.s(BreakerState.CLOSED.name()));
        values.put(":kind", Attr.s(BreakerItem.KIND));
        Map<String, String> names = new HashMap<>(Map.of("#tokens", BreakerItem.RETRY_TOKENS,
                "#state", BreakerItem.STATE, "#kind", Table.KIND));
        try {
            // A new item starts with a full burst; it is a closed breaker until a failure says otherwise.
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk))
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT))
                    .updateExpression("SET #tokens = if_not_exists(#tokens, :burst) + :delta,"
                            + " #state = if_not_exists(#state, :closed), #kind = :kind")
                    .conditionExpression(condition)
                    .expressionAttributeNames(names).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException spent) {
            return false;
        }
    }

    // --- the bulkhead's slots ------------------------------------------------------------------------

    /**
     * Takes a slot for a call in flight: one UpdateItem, which also drops slots whose lease ended
     * (as this sandbox last saw them). {@code withinCap}: only if the account is below its cap,
     * else regardless (a call already under way is counted, never stopped).
     *
     * @return whether the slot is held (false: the store failed, the call goes on uncounted);
     *         empty if the cap refused it
     */
    private Optional<Boolean> takeSlot(String pk, String slot, Limits limits, boolean withinCap) {
        Instant now = clock.instant();
        List<String> ended = current(pk).endedSlots(now);
        Map<String, String> names = new HashMap<>(Map.of("#inFlight", BreakerItem.IN_FLIGHT, "#slot", slot));
        StringBuilder remove = new StringBuilder();
        for (int i = 0; i < ended.size(); i++) {
            names.put("#ended" + i, ended.get(i));
            remove.append(i == 0 ? " REMOVE " : ", ").append("#inFlight.#ended").append(i);
        }
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":until",
                Attr.n(now.plus(limits.slotLease()).toEpochMilli())));
        // The condition sees the slots this write removes as still there.
        values.put(":room", Attr.n(limits.maxInFlight() + ended.size()));
        try {
            try {
                update(pk, b -> b.updateExpression("SET #inFlight.#slot = :until" + remove)
                        .conditionExpression(withinCap ? "size(#inFlight) < :room" : "attribute_exists(#inFlight)")
                        .expressionAttributeNames(names).expressionAttributeValues(withinCap ? values
                                : Map.of(":until", values.get(":until"))));
                return Optional.of(true);
            } catch (ConditionalCheckFailedException noRoomOrNoMap) {
                if (withinCap) {
                    reread(pk);
                    return Optional.empty();
                }
            }
            // The first slot ever creates the map: a path into a map that does not exist is refused.
            try {
                update(pk, b -> b.updateExpression("SET #inFlight = :slots, #kind = :kind")
                        .conditionExpression("attribute_not_exists(#inFlight)")
                        .expressionAttributeNames(Map.of("#inFlight", BreakerItem.IN_FLIGHT, "#kind", Table.KIND))
                        .expressionAttributeValues(Map.of(":slots", AttributeValue.fromM(Map.of(slot,
                                values.get(":until"))), ":kind", Attr.s(BreakerItem.KIND))));
            } catch (ConditionalCheckFailedException createdMeanwhile) {
                update(pk, b -> b.updateExpression("SET #inFlight.#slot = :until")
                        .expressionAttributeNames(Map.of("#inFlight", BreakerItem.IN_FLIGHT, "#slot", slot))
                        .expressionAttributeValues(Map.of(":until", values.get(":until"))));
            }
            return Optional.of(true);
        } catch (SdkException storeFailed) {
            storeFailed("take a bulkhead slot in", pk, storeFailed);
            return Optional.of(false);
        }
    }

    private void giveSlotBack(String pk, String slot) {
        try {
            update(pk, b -> b.updateExpression("REMOVE #inFlight.#slot")
                    .expressionAttributeNames(Map.of("#inFlight", BreakerItem.IN_FLIGHT, "#slot", slot)));
        } catch (SdkException storeFailed) {
            storeFailed("give back bulkhead slot " + slot + " (its lease ends it) in", pk, storeFailed);
        }
    }

    /** One daemon thread per sandbox takes the slots of slow calls; created on first use. */
    private ScheduledExecutorService slots() {
        ScheduledExecutorService existing = slotTaker;
        if (existing != null) {
            return existing;
        }
        synchronized (this) {
            if (slotTaker == null) {
                slotTaker = Executors.newSingleThreadScheduledExecutor(task -> {
                    Thread thread = new Thread(task, "oncepay-bulkhead-slots");
                    thread.setDaemon(true);
                    return thread;
                });
            }
            return slotTaker;
        }
    }

    // --- reads and writes of the item ---------------------------------------------------------------

    /** This sandbox's copy of the breaker, read again once it is {@code breaker-cache} old. */
    private BreakerItem current(String pk) {
        Instant now = clock.instant();
        Cached cached = cache.get(pk);
        if (cached != null && !now.isBefore(cached.readAt()) && now.isBefore(cached.readAt().plus(settings.cacheFor()))) {
            return cached.item();
        }
        try {
            return reread(pk);
        } catch (SdkException storeFailed) {
            storeFailed("read", pk, storeFailed);
            // Fail open, and trust that for a cache period: a sick store is not asked on every call.
            cache.put(pk, new Cached(BreakerItem.ABSENT, now));
            return BreakerItem.ABSENT;
        }
    }

    private BreakerItem reread(String pk) {
        BreakerItem item = BreakerItem.from(dynamo.getItem(b -> b.tableName(table).key(Attr.key(pk))
                .consistentRead(true).overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT))).item());
        cache.put(pk, new Cached(item, clock.instant()));
        return item;
    }

    /** One conditional UpdateItem; the item it leaves becomes this sandbox's copy. */
    private BreakerItem update(String pk, java.util.function.Consumer<UpdateItemRequest.Builder> request) {
        Map<String, AttributeValue> after = dynamo.updateItem(b -> {
            b.tableName(table).key(Attr.key(pk)).returnValues(ReturnValue.ALL_NEW)
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT));
            request.accept(b);
        }).attributes();
        BreakerItem item = BreakerItem.from(after);
        cache.put(pk, new Cached(item, clock.instant()));
        return item;
    }

    private Limits limits(ProviderOperation operation) {
        return settings.limits().get(operation);
    }

    private CircuitBreakerOpenException refused(ProviderAccount account, ProviderOperation operation,
            BreakerItem item) {
        return new CircuitBreakerOpenException("circuit breaker open: " + operation.id() + " breaker of " + account
                + " is " + item.state());
    }

    private void transition(ProviderAccount account, ProviderOperation operation, BreakerState from,
            BreakerState to, String metric, String counts) {
        metrics.count(metric);
        LOG.warnf("breaker transition %s -> %s account=%s operation=%s: %s", from, to, account, operation.id(), counts);
    }

    private void storeFailed(String what, String pk, SdkException cause) {
        metrics.count(Metrics.BREAKER_STORE_FAILED);
        LOG.warnf("breaker store failed to %s %s; failing open (calls go through): %s", what, pk, cause.toString());
    }
}
