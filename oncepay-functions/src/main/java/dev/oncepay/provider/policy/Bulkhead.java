package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.FleetProtection.Limits;
import dev.oncepay.provider.policy.FleetProtection.Settings;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.provider.spi.ProviderRefusal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.ToIntFunction;
import java.util.random.RandomGenerator;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * A cap per provider account and operation on its calls in flight, fleet-wide: the calls in
 * flight are slots with leases, spread over slot shards of {@link FleetProtection#SLOTS_PER_SHARD}
 * each (the parts add up to the cap). A sandbox sees its slot shard as its own slot writes left it,
 * or reads it once it is {@link #READ_AFTER_CACHE_PERIODS} cache periods old: a quick call costs
 * nothing, a slow one two writes (take, give back). A sandbox that saw its shard a quarter full
 * takes its next call's slot at entry, against the cap; a call whose shard is full tries the
 * shard where its sandbox last gave a slot back, then two others, and is refused if they are full
 * too. Only a copy younger than a cache period refuses without a write. The cap is approximate
 * only when an account turns slow: a sandbox that saw its shard quick counts its call once it is
 * still in flight after {@code in-flight-after}, whatever the others hold.
 */
final class Bulkhead {
    private static final Logger LOG = Logger.getLogger(Bulkhead.class);
    /**
     * Ended slots one write removes at most: whatever piled up (holders that died), a write's
     * expression stays far below DynamoDB's 4 KB, and each write shrinks the pile.
     */
    static final int ENDED_SLOTS_PER_WRITE = 16;
    /** Random shards a call whose own shard is full tries besides it and its last freed one. */
    static final int OTHER_SHARDS_TRIED = 2;
    /**
     * How many {@code breaker-cache} periods a sandbox goes by its copy of its slot shard before it
     * reads it again: a slow account shows itself through the sandbox's own slot writes anyway, so
     * the read is for a sandbox that never wrote one, at a tenth of the breaker's read rate.
     */
    static final int READ_AFTER_CACHE_PERIODS = 10;

    private final BreakerItems items;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final Settings settings;
    private final ToIntFunction<ProviderOperation> shard;
    private final RandomGenerator random;
    private volatile ScheduledExecutorService slotTaker;
    /** Per breaker, until when this sandbox takes the other shards for full (a breaker-cache period after it found them so). */
    private final Map<String, Instant> othersFullUntil = new ConcurrentHashMap<>();
    /** Per breaker, the shard this sandbox last gave a slot back to: its next slow call tries it first. */
    private final Map<String, Integer> lastFreed = new ConcurrentHashMap<>();

    Bulkhead(BreakerItems items, Clock clock, EmbeddedMetrics metrics, Settings settings, ToIntFunction<ProviderOperation> shard,
            RandomGenerator random) {
        this.items = items;
        this.clock = clock;
        this.metrics = metrics;
        this.settings = settings;
        this.shard = shard;
        this.random = random;
    }

    /** Slot shard {@code k}'s part of the cap: the cap split evenly, the first shards taking the remainder. */
    int capOf(int k, ProviderOperation operation) {
        int shards = settings.slotShards(operation);
        int cap = settings.limits(operation).maxInFlight();
        return cap / shards + (k < cap % shards ? 1 : 0);
    }

    /**
     * Enters the account's bulkhead for one whole call (all its attempts): refused if the account
     * already has its cap of calls in flight, fleet-wide. While the account is quick (this sandbox
     * has not seen a quarter of its shard's part held lately), a call takes a slot only once it is
     * still in flight after {@code in-flight-after}, so healthy calls write nothing. While it is
     * slow, a call takes its slot at once with a write conditional on its shard's part of the cap,
     * so callers arriving together cannot overshoot it. Close the slot when the call ends, however
     * it ends.
     *
     * @throws BulkheadException the account is at capacity; nothing was sent
     */
    InFlight enter(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        Limits limits = settings.limits(operation);
        Instant now = clock.instant();
        OwnShard own = ownShard(pk, operation);
        int mine = own.k();
        // Short: a shard's map holds up to its part of the cap, and every write to the shard pays for its size.
        String slot = Long.toString(random.nextLong() & Long.MAX_VALUE, Character.MAX_RADIX);
        long inFlight = own.copy().map(s -> s.inFlightAt(now)).orElse(0L);
        int cap = capOf(mine, operation);
        if ((own.copy().isPresent() && inFlight >= Math.max(1, cap / 4)) || cap == 0) {
            // The account is slow right now (a quarter of this shard's part in flight): this call
            // counts from its start, against the cap, in one conditional write, so callers arriving
            // together cannot all slip under it.
            // An older copy that says full is asked again: the conditional write is the truth.
            if (inFlight < cap || !own.seenNow()) {
                Optional<Boolean> taken = takeSlot(own.pk(), slot, cap, limits, true);
                if (taken.isPresent()) {
                    return decided(pk, mine, slot, taken.get());
                }
            }
            List<Integer> tried = new ArrayList<>(List.of(mine));
            if (now.isBefore(othersFullUntil.getOrDefault(pk, Instant.MIN))) {
                // The others were full a moment ago: at saturation each refusal would cost writes on them.
                throw atCapacity(account, operation, limits, tried);
            }
            // The shard where this sandbox last gave a slot back most likely still has that room.
            Integer freed = lastFreed.get(pk);
            if (freed != null && freed != mine && freed < settings.slotShards(operation)) {
                tried.add(freed);
                Optional<Boolean> taken = takeSlot(BreakerShard.slotsPk(pk, freed), slot, capOf(freed, operation), limits,
                        true);
                if (taken.isPresent()) {
                    return decided(pk, freed, slot, taken.get());
                }
            }
            for (int spill = 0; spill < OTHER_SHARDS_TRIED && tried.size() < settings.slotShards(operation); spill++) {
                int other = otherShard(tried, operation);
                tried.add(other);
                int otherCap = capOf(other, operation);
                if (otherCap > 0) {
                    Optional<Boolean> taken = takeSlot(BreakerShard.slotsPk(pk, other), slot, otherCap, limits, true);
                    if (taken.isPresent()) {
                        return decided(pk, other, slot, taken.get());
                    }
                }
            }
            othersFullUntil.put(pk, now.plus(settings.cacheFor()));
            throw atCapacity(account, operation, limits, tried);
        }
        InFlight call = new InFlight(pk, mine, slot);
        call.timer = slots().schedule(() -> call.takeUnlessEnded(() -> takeSlot(own.pk(), slot, cap, limits, false).orElse(false)),
                settings.inFlightAfter().toMillis(), TimeUnit.MILLISECONDS);
        return call;
    }

    private BulkheadException atCapacity(ProviderAccount account, ProviderOperation operation, Limits limits,
            List<Integer> tried) {
        metrics.count(Metrics.PROVIDER_AT_CAPACITY);
        return new BulkheadException(ProviderRefusal.AT_CAPACITY.detail() + ": " + limits.maxInFlight() + " "
                + operation.id() + " calls to " + account + " in flight (shards " + tried + " full)");
    }

    /**
     * Whether the account's cap is reached as this sandbox sees its slot shard (read if its copy is
     * {@link #READ_AFTER_CACHE_PERIODS} old): its part of the cap held, seen within a {@code breaker-cache} period.
     */
    boolean full(String pk, ProviderOperation operation, Instant now) {
        OwnShard own = ownShard(pk, operation);
        return own.seenNow() && own.copy().map(s -> s.inFlightAt(now) >= capOf(own.k(), operation)).orElse(false);
    }

    /**
     * This sandbox's slot shard {@code k} of a breaker, as the sandbox sees it: its copy, read if
     * that is {@link #READ_AFTER_CACHE_PERIODS} cache periods old (empty: the store failed), and
     * whether the copy is younger than one cache period.
     */
    private record OwnShard(int k, String pk, Optional<BreakerShard> copy, boolean seenNow) {
    }

    private OwnShard ownShard(String breakerPk, ProviderOperation operation) {
        int k = shard.applyAsInt(operation);
        String pk = BreakerShard.slotsPk(breakerPk, k);
        Optional<BreakerShard> copy = items.shard(pk, slotsReadAfter());
        return new OwnShard(k, pk, copy, items.isFresh(pk));
    }

    private Duration slotsReadAfter() {
        return settings.cacheFor().multipliedBy(READ_AFTER_CACHE_PERIODS);
    }

    private InFlight decided(String pk, int shard, String slot, boolean held) {
        InFlight call = new InFlight(pk, shard, slot);
        call.decided(held);
        return call;
    }

    /** A shard not yet {@code tried}, at random. */
    private int otherShard(List<Integer> tried, ProviderOperation operation) {
        int shards = settings.slotShards(operation);
        int other = random.nextInt(shards);
        while (tried.contains(other)) {
            other = (other + 1) % shards;
        }
        return other;
    }

    /** One call's place in its account's bulkhead; closing it gives back the slot, if the call took one. */
    final class InFlight implements AutoCloseable {
        /** The breaker's pk, and the slot shard whose slot this call takes. */
        private final String breakerPk;
        private final int shard;
        private final String pk;
        private final String slot;
        /** Set once: by the timer as it starts taking the slot, or by the call ending first. */
        private final AtomicBoolean decided = new AtomicBoolean();
        private final CompletableFuture<Boolean> taken = new CompletableFuture<>();
        private volatile ScheduledFuture<?> timer;

        private InFlight(String breakerPk, int shard, String slot) {
            this.breakerPk = breakerPk;
            this.shard = shard;
            this.pk = BreakerShard.slotsPk(breakerPk, shard);
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
                if (taken.get(BreakerItems.STORE_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS)) {
                    giveSlotBack(this);
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
     * Takes a slot for a call in flight in one slot shard, in one UpdateItem that also drops a
     * bounded number of slots whose lease ended (as this sandbox last saw them). {@code withinCap}:
     * only if the shard is below its part of the cap, else regardless (a call already under way is
     * counted, never stopped; its write is refused only for want of the map, which it creates). A
     * refused take within the cap is followed by a consistent read, which tells a full shard from a
     * missing map or from ended slots another writer removed first; then it tries once more.
     *
     * @return whether the slot is held (false: the store failed, the call goes on uncounted);
     *         empty if the cap refused it
     */
    private Optional<Boolean> takeSlot(String shardPk, String slot, int cap, Limits limits, boolean withinCap) {
        Instant now = clock.instant();
        AttributeValue until = Attr.n(now.plus(limits.slotLease()).toEpochMilli());
        List<String> ended = items.ifFresh(shardPk, slotsReadAfter())
                .map(s -> s.endedSlots(now, ENDED_SLOTS_PER_WRITE)).orElse(List.of());
        try {
            for (int attempt = 0; attempt < 2; attempt++) {
                if (setSlot(shardPk, slot, until, ended, withinCap ? OptionalInt.of(cap) : OptionalInt.empty())) {
                    return Optional.of(true);
                }
                if (!withinCap) {
                    // Refused only for want of a map: create it, or set the slot in the one just created.
                    if (createMap(shardPk, slot, until)) {
                        return Optional.of(true);
                    }
                    continue;
                }
                BreakerShard current = items.rereadShard(shardPk);
                if (current.inFlightAt(now) >= cap) {
                    return Optional.empty();
                }
                if (current.inFlight().isEmpty() && createMap(shardPk, slot, until)) {
                    return Optional.of(true);
                }
                ended = current.endedSlots(now, ENDED_SLOTS_PER_WRITE);
            }
            LOG.debugf("bulkhead slot %s of %s: the shard changed under two writes; %s", slot, shardPk,
                    withinCap ? "refused as full" : "not counted");
            return withinCap ? Optional.empty() : Optional.of(false);
        } catch (SdkException storeFailed) {
            items.storeFailed("take a bulkhead slot in", shardPk, storeFailed);
            return Optional.of(false);
        }
    }

    /**
     * Sets the slot and removes {@code ended}; with a cap, only while the map holds fewer than the
     * cap, the ended slots (which must all still be there) credited. False if the condition refused it.
     */
    private boolean setSlot(String shardPk, String slot, AttributeValue until, List<String> ended, OptionalInt cap) {
        Map<String, String> names = new HashMap<>(Map.of("#inFlight", BreakerShard.IN_FLIGHT, "#slot", slot));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":until", until));
        StringBuilder remove = new StringBuilder();
        StringBuilder condition = new StringBuilder(cap.isPresent() ? "size(#inFlight) < :room" : "attribute_exists(#inFlight)");
        for (int i = 0; i < ended.size(); i++) {
            names.put("#ended" + i, ended.get(i));
            remove.append(i == 0 ? " REMOVE " : ", ").append("#inFlight.#ended").append(i);
            if (cap.isPresent()) {
                condition.append(" AND attribute_exists(#inFlight.#ended").append(i).append(')');
            }
        }
        if (cap.isPresent()) {
            values.put(":room", Attr.n(cap.getAsInt() + ended.size()));
        }
        try {
            items.updateShard(shardPk, b -> b.updateExpression("SET #inFlight.#slot = :until" + remove)
                    .conditionExpression(condition.toString()).expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException refused) {
            return false; // no map yet, no room, or an ended slot already gone
        }
    }

    /** The first slot ever creates the map (a path into a map that does not exist is refused); false if another writer created it first. */
    private boolean createMap(String shardPk, String slot, AttributeValue until) {
        try {
            items.updateShard(shardPk, b -> b.updateExpression("SET #inFlight = :slots, #kind = :kind")
                    .conditionExpression("attribute_not_exists(#inFlight)")
                    .expressionAttributeNames(Map.of("#inFlight", BreakerShard.IN_FLIGHT, "#kind", Table.KIND))
                    .expressionAttributeValues(Map.of(":slots", AttributeValue.fromM(Map.of(slot, until)), ":kind",
                            Attr.s(BreakerItem.KIND))));
            return true;
        } catch (ConditionalCheckFailedException createdMeanwhile) {
            return false;
        }
    }

    /** Gives a call's slot back; the shard as the write left it becomes this sandbox's copy, for its next call. */
    private void giveSlotBack(InFlight call) {
        try {
            items.updateShard(call.pk, b -> b.updateExpression("REMOVE #inFlight.#slot")
                    .expressionAttributeNames(Map.of("#inFlight", BreakerShard.IN_FLIGHT, "#slot", call.slot)));
            lastFreed.put(call.breakerPk, call.shard);
            othersFullUntil.remove(call.breakerPk);
        } catch (SdkException storeFailed) {
            items.storeFailed("give back bulkhead slot " + call.slot + " (its lease ends it) in", call.pk, storeFailed);
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
}
