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
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
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
 * nothing, a slow one two writes (take, give back). A sandbox that saw an eighth of its shard
 * (or of the one its last call gave back to) held by slow calls, or its shard full, or whose last
 * call hung, or that has not called the account before, takes its next call's slot at entry,
 * against the cap: first in the shard its last call gave back to (the room it left), then its
 * own if its copy shows room, then in a shard with room as it reads them at once (its own among
 * them, {@link #SHARDS_SAMPLED} per BatchGetItem) unless its copies younger than
 * {@link #trustFullFor} show one; it is refused if none has room. A shard a copy shows full is
 * read, never written to on the chance: at saturation every refused call would spend a write unit
 * on it. A sandbox refuses without a request only from copies that young: its own shard full, and
 * the others seen full or looked through and found full ({@link #full}). The cap is approximate only when an account turns slow: a
 * sandbox that saw its shard quick counts its call once it is still in flight after
 * {@code in-flight-after}, where there is room or else regardless.
 */
final class Bulkhead {
    private static final Logger LOG = Logger.getLogger(Bulkhead.class);
    /**
     * Ended slots one write removes at most: whatever piled up (holders that died), a write's
     * expression stays far below DynamoDB's 4 KB, and each write shrinks the pile.
     */
    static final int ENDED_SLOTS_PER_WRITE = 16;
    /**
     * Slot shards a call that found no room where it tried reads for room at once (its own first,
     * if its copy of it is too old to trust): one BatchGetItem's most. At saturation the last free
     * slots sit in a few shards that blind tries would rarely hit; a cap up to 1,600 is read whole,
     * a larger one a hundred shards at a time. A refused call reads each shard at most once, so
     * even if all of 5,000 charges a second were refused, each of a 5,000 cap's 312 shards would
     * serve 1,600 reads a second: 27 % of a partition's.
     */
    static final int SHARDS_SAMPLED = 100;
    /** Of the sampled shards with room, how many a call tries before it is refused (another call may have taken the room). */
    static final int ROOMY_SHARDS_TRIED = 2;
    /**
     * How many {@code breaker-cache} periods a sandbox goes by its copy of its slot shard before it
     * reads it again: a slow account shows itself through the sandbox's own slot writes anyway, so
     * the read is for a sandbox that never wrote one, at a tenth of the breaker's read rate.
     */
    static final int READ_AFTER_CACHE_PERIODS = 10;
    /**
     * What part of {@code in-flight-after} a copy that shows slot shards full refuses calls without
     * a request for (see {@link #trustFullFor}).
     */
    static final int FULL_TRUSTED_FOR_PART_OF_IN_FLIGHT_AFTER = 100;
    /**
     * How long a call that ends waits for its slot's take, which the timer may still be making: a
     * few store requests (its own shard, a read of the others, one with room, its own regardless),
     * each at most {@link BreakerItems#STORE_TIMEOUT}.
     */
    private static final Duration TAKE_WAIT = BreakerItems.STORE_TIMEOUT.multipliedBy(6);
    /**
     * Begins the name of a slot taken for a call already under way (one that went uncounted for
     * {@code in-flight-after}, so slow from the moment it is counted); a slot id, in base 36, never
     * does.
     */
    static final String UNDER_WAY = "~";

    private final BreakerItems items;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final Settings settings;
    private final ToIntFunction<ProviderOperation> shard;
    private final RandomGenerator random;
    private volatile ScheduledExecutorService slotTaker;
    /**
     * Per breaker, the shard where this sandbox's last call gave its slot back, until its next call:
     * that call tries it first, so the room it left is taken again, not left to random tries.
     */
    private final Map<String, Integer> freedRoom = new ConcurrentHashMap<>();
    /**
     * The breakers whose last call from this sandbox the provider left unanswered until the read
     * timeout, until its next call: that call counts from its start. The sandbox's copy of its
     * shard may be from before the account turned slow, and a hung call gives no slot back whose
     * write would have shown it.
     */
    private final Set<String> lastCallHung = ConcurrentHashMap.newKeySet();
    /**
     * The breakers this sandbox has entered since it started (or was restored). Its first call to
     * one counts from its start ({@code first-call-counted}): Lambda starts a sandbox when every
     * other is busy, which is what an account turning slow does to a fleet, and the read of its
     * shard that call makes cannot show the calls the fleet sent uncounted in the last
     * {@code in-flight-after}. A cold start costs two writes more; a slow account's uncounted calls
     * are then only those of the sandboxes that were warm.
     */
    private final Set<String> entered = ConcurrentHashMap.newKeySet();
    /** Per breaker, when this sandbox last looked through the slot shards for room and found none (trusted for {@link #trustFullFor}). */
    private final Map<String, Instant> lookedFull = new ConcurrentHashMap<>();

    Bulkhead(BreakerItems items, Clock clock, EmbeddedMetrics metrics, Settings settings, ToIntFunction<ProviderOperation> shard,
            RandomGenerator random) {
        this.items = items;
        this.clock = clock;
        this.metrics = metrics;
        this.settings = settings;
        this.shard = shard;
        this.random = random;
    }

    /**
     * Forgets what this sandbox's calls left it: after a SnapStart restore it is a new sandbox, whose
     * first call to each account counts from its start.
     */
    void forget() {
        entered.clear();
        freedRoom.clear();
        lastCallHung.clear();
        lookedFull.clear();
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
     * has not seen an eighth of its shard's part held by slow calls lately, its last call did not
     * hang, and it has called the account before), a call takes a slot only once it is still in
     * flight after {@code in-flight-after}, so healthy calls write nothing. While it is slow, a
     * call takes its slot at once with a write conditional on its shard's part of the cap, so
     * callers arriving together cannot overshoot it. Close the slot when the call ends, however it
     * ends.
     *
     * @throws BulkheadException the account is at capacity; nothing was sent
     */
    InFlight enter(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        Limits limits = settings.limits(operation);
        Instant now = clock.instant();
        OwnShard own = ownShard(pk, operation);
        int mine = own.k();
        Integer freed = freedRoom.remove(pk);
        boolean afterHung = lastCallHung.remove(pk);
        boolean first = entered.add(pk) && settings.firstCallCounted();
        // Short: a shard's map holds up to its part of the cap, and every write to the shard pays for its size.
        String slot = Long.toString(random.nextLong() & Long.MAX_VALUE, Character.MAX_RADIX);
        long inFlight = own.copy().map(s -> s.inFlightAt(now)).orElse(0L);
        int cap = capOf(mine, operation);
        // A shard at its part of the cap counts the call too, however young its slots: uncounted, it would go over.
        if (inFlight >= cap || own.copy().map(s -> slowHeld(s, mine, operation, now)).orElse(false)
                || slowWhereFreed(pk, freed, operation, now) || afterHung || first) {
            // The account is slow right now (an eighth of this shard's part held by slow calls, or
            // this sandbox's last call hung), or this sandbox cannot tell yet (its first call): this
            // call counts from its start, against the cap, in one conditional write, so callers
            // arriving together cannot all slip under it.
            // First the room this sandbox's last call left: at saturation, the one a slot surely freed in.
            List<Integer> tried = new ArrayList<>();
            if (freed != null && freed < settings.slotShards(operation) && capOf(freed, operation) > 0) {
                tried.add(freed);
            }
            // A copy that says full is not written to blindly: an older one is read again with the others.
            if (!tried.contains(mine) && inFlight < cap) {
                tried.add(mine);
            }
            Optional<Taken> taken = takeInOneOf(pk, tried, slot, operation);
            if (taken.isEmpty()) {
                try {
                    List<Integer> withRoom = withRoom(pk, mine, tried, operation, now);
                    tried.addAll(withRoom);
                    taken = takeInOneOf(pk, withRoom, slot, operation);
                } catch (SdkException storeFailed) {
                    items.storeFailed("read bulkhead slot shards of", pk, storeFailed);
                    taken = Optional.of(new Taken(mine, false));
                }
            }
            if (taken.isEmpty()) {
                lookedFull.put(pk, now);
            }
            return decided(pk, slot, taken.orElseThrow(() -> atCapacity(account, operation, limits, tried)));
        }
        String underWay = UNDER_WAY + slot;
        InFlight call = new InFlight(pk, underWay);
        call.timer = slots().schedule(() -> call.takeUnlessEnded(() -> takeUnderWay(pk, mine, underWay, operation)),
                settings.inFlightAfter().toMillis(), TimeUnit.MILLISECONDS);
        return call;
    }

    /**
     * The slot of a call already under way (it is counted, never stopped): within the cap of its
     * own shard or of another with room (as {@link #withRoom} finds them), so the calls a slow
     * account's first second sends uncounted fill the cap's room and do not leave some shards over
     * their part and others with room; only if the cap is full, in its own shard regardless.
     *
     * @return the shard holding the slot; empty if the store failed (the call goes on uncounted)
     */
    private OptionalInt takeUnderWay(String pk, int mine, String slot, ProviderOperation operation) {
        Optional<Taken> taken = takeInOneOf(pk, List.of(mine), slot, operation);
        if (taken.isEmpty()) {
            try {
                taken = takeInOneOf(pk, withRoom(pk, mine, List.of(mine), operation, clock.instant()), slot, operation);
            } catch (SdkException storeFailed) {
                items.storeFailed("read bulkhead slot shards of", pk, storeFailed);
                return OptionalInt.empty();
            }
        }
        return taken.orElseGet(() -> new Taken(mine, takeSlot(BreakerShard.slotsPk(pk, mine), slot,
                capOf(mine, operation), settings.limits(operation), false).orElse(false))).heldIn();
    }

    /** Where a call's slot was taken, and whether it is held (false: the store failed, the call goes on uncounted). */
    private record Taken(int shard, boolean held) {
        /** The shard holding the slot; empty if none does. */
        OptionalInt heldIn() {
            return held ? OptionalInt.of(shard) : OptionalInt.empty();
        }
    }

    /** Takes a slot within the cap in the first of {@code shards} that has room; empty if all were full. */
    private Optional<Taken> takeInOneOf(String pk, List<Integer> shards, String slot, ProviderOperation operation) {
        for (int k : shards) {
            Optional<Boolean> held = takeSlot(BreakerShard.slotsPk(pk, k), slot, capOf(k, operation),
                    settings.limits(operation), true);
            if (held.isPresent()) {
                return Optional.of(new Taken(k, held.get()));
            }
        }
        return Optional.empty();
    }

    /**
     * Whether the shard this sandbox's last call gave its slot back to was an eighth full after it,
     * as that write (within a cache period) showed: the account is slow even if this sandbox's
     * copy of its own shard, which its calls did not write lately, is older and says otherwise.
     */
    private boolean slowWhereFreed(String pk, Integer freed, ProviderOperation operation, Instant now) {
        return freed != null && freed < settings.slotShards(operation)
                && seenThisPeriod(pk, freed).map(s -> slowHeld(s, freed, operation, now)).orElse(false);
    }

    /**
     * Whether slot shard {@code k}, as {@code seen}, holds slow calls for an eighth of its part of
     * the cap (two of sixteen): the account is slow. A slow call's slot was taken under way, or
     * taken at entry at least {@code in-flight-after} ago; a quick call counted at entry is not
     * one, or calls counted at entry would keep a recovered account's shards looking slow. A
     * healthy account's shard rarely holds two slow calls; counting from the start that soon keeps
     * the calls a turning account sends uncounted few, and so the cap's overshoot.
     */
    private boolean slowHeld(BreakerShard seen, int k, ProviderOperation operation, Instant now) {
        long held = now.toEpochMilli();
        // A slot's value is its lease's end: a slot taken in-flight-after ago or earlier ends by this.
        long slowBy = now.minus(settings.inFlightAfter()).plus(settings.limits(operation).slotLease()).toEpochMilli();
        return seen.inFlight().entrySet().stream().filter(slot -> slot.getValue() > held
                && (slot.getKey().startsWith(UNDER_WAY) || slot.getValue() <= slowBy)).count()
                >= Math.max(1, capOf(k, operation) / 8);
    }

    /** Whether slot shard {@code k}, as {@code seen}, holds less than its part of the cap. */
    private boolean hasRoom(BreakerShard seen, int k, ProviderOperation operation, Instant now) {
        return seen.inFlightAt(now) < capOf(k, operation);
    }

    private BulkheadException atCapacity(ProviderAccount account, ProviderOperation operation, Limits limits,
            List<Integer> tried) {
        metrics.count(Metrics.PROVIDER_AT_CAPACITY);
        return new BulkheadException(ProviderRefusal.AT_CAPACITY.detail() + ": " + limits.maxInFlight() + " "
                + operation.id() + " calls to " + account + " in flight (shards " + tried + " full)");
    }

    /**
     * Whether the account's cap is reached as this sandbox sees its slot shard (read if its copy is
     * {@link #READ_AFTER_CACHE_PERIODS} old): its part of the cap held, seen within
     * {@link #trustFullFor}, no slot given back by its last call (whose room its next call takes),
     * and no room to look for elsewhere: its copies of the other shards, as young, show them all
     * full, or it looked through them that recently and found none. Otherwise the call goes to
     * {@link #enter}, which looks.
     */
    boolean full(String pk, ProviderOperation operation, Instant now) {
        OwnShard own = ownShard(pk, operation);
        return own.seenJustNow() && own.copy().map(s -> !hasRoom(s, own.k(), operation, now)).orElse(false)
                && !freedRoom.containsKey(pk)
                && (lookedFullWithin(pk, now) || othersSeenFull(pk, own.k(), operation, now));
    }

    /** Whether this sandbox's copies younger than {@link #trustFullFor} show every slot shard but {@code mine} full. */
    private boolean othersSeenFull(String pk, int mine, ProviderOperation operation, Instant now) {
        for (int k = 0; k < settings.slotShards(operation); k++) {
            int other = k;
            if (k != mine && seenJustNow(pk, k).map(s -> hasRoom(s, other, operation, now)).orElse(true)) {
                return false;
            }
        }
        return true;
    }

    /** This sandbox's copy of slot shard {@code k} of breaker {@code pk}, if younger than a cache period. */
    private Optional<BreakerShard> seenThisPeriod(String pk, int k) {
        return items.ifFresh(BreakerShard.slotsPk(pk, k), settings.cacheFor());
    }

    /** This sandbox's copy of slot shard {@code k} of breaker {@code pk}, if younger than {@link #trustFullFor}. */
    private Optional<BreakerShard> seenJustNow(String pk, int k) {
        return items.ifFresh(BreakerShard.slotsPk(pk, k), trustFullFor());
    }

    /**
     * How long a copy that shows a slot shard full, or a look that found every shard full, refuses
     * calls without a request: a hundredth of {@code in-flight-after} (5 ms by default), about one
     * store request. A slot is held by a call slow enough to count, so in that time about one slot
     * in a hundred can come free, and a charge is refused with room left only as long as the
     * request it would take to see it. Trusted for 50 ms, such copies refused payments an exact cap
     * lets through as a wave of slow calls ended; a refused call's own store requests take longer
     * than 5 ms, so on Lambda nearly every one looks once, which the reads per shard are sized for
     * ({@link #SHARDS_SAMPLED}).
     */
    private Duration trustFullFor() {
        return settings.inFlightAfter().dividedBy(FULL_TRUSTED_FOR_PART_OF_IN_FLIGHT_AFTER);
    }

    private boolean lookedFullWithin(String pk, Instant now) {
        Instant looked = lookedFull.get(pk);
        return looked != null && looked.plus(trustFullFor()).isAfter(now);
    }

    /**
     * This sandbox's slot shard {@code k} of a breaker, as the sandbox sees it: its copy, read if
     * that is {@link #READ_AFTER_CACHE_PERIODS} cache periods old (empty: the store failed), and
     * whether the copy is younger than {@link #trustFullFor}, so that it may refuse a call.
     */
    private record OwnShard(int k, Optional<BreakerShard> copy, boolean seenJustNow) {
    }

    private OwnShard ownShard(String breakerPk, ProviderOperation operation) {
        int k = shard.applyAsInt(operation);
        String pk = BreakerShard.slotsPk(breakerPk, k);
        Optional<BreakerShard> copy = items.shard(pk, slotsReadAfter());
        return new OwnShard(k, copy, seenJustNow(breakerPk, k).isPresent());
    }

    private Duration slotsReadAfter() {
        return settings.cacheFor().multipliedBy(READ_AFTER_CACHE_PERIODS);
    }

    private InFlight decided(String pk, String slot, Taken taken) {
        InFlight call = new InFlight(pk, slot);
        call.decided(taken.heldIn());
        return call;
    }

    /**
     * Up to {@link #ROOMY_SHARDS_TRIED} shards not yet {@code tried} that have room as this sandbox
     * last saw them, at random (calls refused together spread over them). If its copies younger
     * than {@link #trustFullFor} show none, it reads up to {@link #SHARDS_SAMPLED} of the rest at
     * once (one BatchGetItem): its own shard {@code mine} first, then those it knows least
     * recently. So a sandbox refused again and again reads every shard at most once in that time,
     * and refuses without a request once it has seen all of them full within it.
     */
    private List<Integer> withRoom(String pk, int mine, List<Integer> tried, ProviderOperation operation, Instant now) {
        int shards = settings.slotShards(operation);
        List<Integer> roomy = new ArrayList<>();
        List<Integer> unseen = new ArrayList<>();
        for (int k = 0; k < shards; k++) {
            if (tried.contains(k)) {
                continue;
            }
            Optional<BreakerShard> copy = seenJustNow(pk, k);
            if (copy.isEmpty()) {
                unseen.add(k);
            } else if (hasRoom(copy.get(), k, operation, now)) {
                roomy.add(k);
            }
        }
        if (roomy.isEmpty() && !unseen.isEmpty()) {
            shuffle(unseen);
            // The shards it knows least recently first: looks in a row go through a large cap, not the same hundred again.
            Map<Integer, Instant> readAt = new HashMap<>();
            unseen.forEach(k -> readAt.put(k, items.readAt(BreakerShard.slotsPk(pk, k))));
            unseen.sort(Comparator.comparing(readAt::get));
            if (unseen.remove(Integer.valueOf(mine))) {
                unseen.add(0, mine);
            }
            List<Integer> sample = unseen.subList(0, Math.min(SHARDS_SAMPLED, unseen.size()));
            Map<String, BreakerShard> read = items.shards(sample.stream().map(k -> BreakerShard.slotsPk(pk, k)).toList());
            for (int k : sample) {
                if (hasRoom(read.getOrDefault(BreakerShard.slotsPk(pk, k), BreakerShard.ABSENT), k, operation, now)) {
                    roomy.add(k);
                }
            }
        }
        shuffle(roomy);
        return roomy.subList(0, Math.min(ROOMY_SHARDS_TRIED, roomy.size()));
    }

    /** Fisher–Yates with this bulkhead's generator (seeded in the simulation): Java 17's {@code Collections.shuffle} takes only a {@code Random}. */
    private void shuffle(List<Integer> shards) {
        for (int i = shards.size() - 1; i > 0; i--) {
            Collections.swap(shards, i, random.nextInt(i + 1));
        }
    }

    /** One call's place in its account's bulkhead; closing it gives back the slot, if the call took one. */
    final class InFlight implements AutoCloseable {
        private final String breakerPk;
        private final String slot;
        /** Set once: by the timer as it starts taking the slot, or by the call ending first. */
        private final AtomicBoolean decided = new AtomicBoolean();
        /** The slot shard holding this call's slot; empty: it holds none (it goes on uncounted). */
        private final CompletableFuture<OptionalInt> heldIn = new CompletableFuture<>();
        private volatile ScheduledFuture<?> timer;
        private volatile boolean hung;

        private InFlight(String breakerPk, String slot) {
            this.breakerPk = breakerPk;
            this.slot = slot;
        }

        /**
         * An attempt of this call got no answer until the read timeout: the provider may still be
         * working on it, so its slot stays taken until its lease ends rather than coming back as
         * the call ends here. A hung provider's timeouts then free no room for more calls to it.
         */
        void hung() {
            hung = true;
        }

        /** Taken (or not) at entry. */
        private void decided(OptionalInt shard) {
            decided.set(true);
            heldIn.complete(shard);
        }

        /** The timer: take the slot, unless the call ended meanwhile. */
        private void takeUnlessEnded(Supplier<OptionalInt> take) {
            if (!decided.compareAndSet(false, true)) {
                return;
            }
            try {
                heldIn.complete(take.get());
            } catch (RuntimeException unexpected) {
                heldIn.complete(OptionalInt.empty());
                LOG.warnf("bulkhead slot %s of %s: taking it failed (%s); its lease ends it", slot, breakerPk, unexpected);
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
                OptionalInt shard = heldIn.get(TAKE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                if (hung) {
                    lastCallHung.add(breakerPk);
                } else if (shard.isPresent()) {
                    giveSlotBack(breakerPk, shard.getAsInt(), slot);
                }
            } catch (InterruptedException | ExecutionException | TimeoutException notTaken) {
                LOG.warnf("bulkhead slot %s of %s: unknown whether it was taken (%s); its lease ends it", slot,
                        breakerPk, notTaken.toString());
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
    private void giveSlotBack(String breakerPk, int shard, String slot) {
        String shardPk = BreakerShard.slotsPk(breakerPk, shard);
        try {
            items.updateShard(shardPk, b -> b.updateExpression("REMOVE #inFlight.#slot")
                    .expressionAttributeNames(Map.of("#inFlight", BreakerShard.IN_FLIGHT, "#slot", slot)));
            freedRoom.put(breakerPk, shard);
        } catch (SdkException storeFailed) {
            items.storeFailed("give back bulkhead slot " + slot + " (its lease ends it) in", shardPk, storeFailed);
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
