package dev.oncepay.provider.policy;

import dev.oncepay.contract.Attr;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One of the items a breaker's fleet-wide state is spread over. Each sandbox uses one shard of each
 * kind, so no item takes more than its share of the fleet's requests. A breaker shard, pk
 * {@code <breaker pk>#<k>}, holds:
 * <ul>
 * <li>the calls its sandboxes counted, per second, in a ring of {@link #slots} seconds (attributes
 * {@code c<i>}, {@code f<i>}, {@code s<i>}: calls, failed, slow; {@code e<i>}: the second they count);</li>
 * <li>a copy of the breaker's decided state ({@link #breaker}, written by whoever made the transition),
 * with {@link BreakerItem#probeUntil} standing for this shard's claim on the probe;</li>
 * <li>its part of the retry budget's tokens.</li>
 * </ul>
 * A slot shard, pk {@code <breaker pk>#slots#<k>}, holds only its part of the bulkhead's slots
 * ({@link #inFlight}): apart from the counts, so the slots' writes neither grow nor crowd the item
 * every sandbox of the breaker shard reads.
 *
 * @param breaker this shard's copy of the breaker (version 0: it never saw a transition)
 * @param counted calls counted per second, by epoch second
 * @param inFlight the bulkhead's slots in this shard: slot id → epoch millis at which it ends even
 *        if its holder never gives it back
 */
record BreakerShard(BreakerItem breaker, Map<Long, CallCounts> counted, Map<String, Long> inFlight) {

    static final String CALLS = "c";
    static final String FAILED = "f";
    static final String SLOW = "s";
    static final String SECOND = "e";
    /** The retry budget's tokens in this shard, in thousandths of a retry. */
    static final String RETRY_TOKENS = "retryTokens";
    static final String IN_FLIGHT = "inFlight";

    static final BreakerShard ABSENT = new BreakerShard(BreakerItem.ABSENT, Map.of(), Map.of());

    BreakerShard {
        counted = Map.copyOf(counted);
        inFlight = Map.copyOf(inFlight);
    }

    static String pk(String breakerPk, int shard) {
        return breakerPk + "#" + shard;
    }

    static String slotsPk(String breakerPk, int shard) {
        return breakerPk + "#slots#" + shard;
    }

    /** Ring slots for a window no older than {@code window}: one per second, and the current one. */
    static int slots(Duration window) {
        return (int) Math.max(1, (window.toMillis() + 999) / 1000) + 1;
    }

    static int slot(long second, int slots) {
        return (int) Math.floorMod(second, (long) slots);
    }

    static BreakerShard from(Map<String, AttributeValue> item, int slots) {
        if (item == null || item.isEmpty()) {
            return ABSENT;
        }
        Map<Long, CallCounts> counted = new HashMap<>();
        for (int i = 0; i < slots; i++) {
            long second = Attr.number(item, SECOND + i, -1);
            if (second >= 0) {
                counted.put(second, new CallCounts(Attr.number(item, CALLS + i, 0), Attr.number(item, FAILED + i, 0),
                        Attr.number(item, SLOW + i, 0)));
            }
        }
        return new BreakerShard(BreakerItem.from(item), counted, slots(item.get(IN_FLIGHT)));
    }

    private static Map<String, Long> slots(AttributeValue map) {
        if (map == null || !map.hasM()) {
            return Map.of();
        }
        Map<String, Long> slots = new HashMap<>();
        map.m().forEach((slot, until) -> slots.put(slot, Long.parseLong(until.n())));
        return slots;
    }

    /** This shard with another copy of the breaker's state. */
    BreakerShard withBreaker(BreakerItem copy) {
        return new BreakerShard(copy, counted, inFlight);
    }

    /** What this shard counted in {@code second}. */
    CallCounts in(long second) {
        return counted.getOrDefault(second, CallCounts.NONE);
    }

    /** Calls counted in flight at {@code now}: slots whose lease has not ended. */
    long inFlightAt(Instant now) {
        return inFlight.values().stream().filter(until -> until > now.toEpochMilli()).count();
    }

    /**
     * Slots whose lease ended (their holders died or could not give them back), at most
     * {@code limit}: the next writer removes them, a bounded number per write so its expression
     * stays far below DynamoDB's 4 KB whatever piled up.
     */
    List<String> endedSlots(Instant now, int limit) {
        return inFlight.entrySet().stream().filter(e -> e.getValue() <= now.toEpochMilli()).map(Map.Entry::getKey)
                .sorted().limit(limit).toList();
    }

    /** Whether a call at {@code now} is refused from this copy: open and not yet due a probe, or this shard's probe claim is live. */
    boolean refuses(Instant now, Duration openFor) {
        return switch (breaker.state()) {
            case CLOSED -> false;
            case OPEN, HALF_OPEN -> now.toEpochMilli() < breaker.openedAt() + openFor.toMillis()
                    || now.toEpochMilli() < breaker.probeUntil();
        };
    }
}
