package dev.oncepay.provider.policy;

import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.contract.Attr;
import dev.oncepay.provider.spi.ProviderOperation;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One fleet breaker as its item holds it, pk {@code breaker#<provider>/<account>#<operation>}.
 * An absent item is a closed breaker with an empty window.
 *
 * @param state where the breaker stands
 * @param failures failed or slow calls counted since {@code windowStart} (closed only)
 * @param windowStart epoch millis at which the failure window began
 * @param openedAt epoch millis of the last opening (closed→open or half-open→open)
 * @param openings how many times it opened, ever: one open period per value
 * @param probeOwner who holds the half-open probe lease ({@code null} outside half-open)
 * @param probeUntil epoch millis at which that lease ends and another sandbox may take the probe over
 * @param inFlight the bulkhead's slots: one per call in flight longer than {@code in-flight-after},
 *        slot id → epoch millis at which it ends even if its holder never gives it back
 */
record BreakerItem(BreakerState state, long failures, long windowStart, long openedAt, long openings,
        String probeOwner, long probeUntil, Map<String, Long> inFlight) {

    static final String PREFIX = "breaker#";
    static final String KIND = "breaker";
    static final String STATE = "breakerState";
    static final String FAILURES = "failures";
    static final String WINDOW_START = "windowStart";
    static final String OPENED_AT = "openedAt";
    static final String OPENINGS = "openings";
    static final String PROBE_OWNER = "probeOwner";
    static final String PROBE_UNTIL = "probeUntil";
    /** The retry budget's tokens, in thousandths of a retry. */
    static final String RETRY_TOKENS = "retryTokens";
    static final String IN_FLIGHT = "inFlight";

    static final BreakerItem ABSENT = new BreakerItem(BreakerState.CLOSED, 0, 0, 0, 0, null, 0, Map.of());

    BreakerItem {
        inFlight = Map.copyOf(inFlight);
    }

    static String pk(ProviderAccount account, ProviderOperation operation) {
        return PREFIX + account + "#" + operation.id();
    }

    static BreakerItem from(Map<String, AttributeValue> item) {
        if (item == null || item.isEmpty()) {
            return ABSENT;
        }
        String state = Attr.string(item, STATE);
        return new BreakerItem(state == null ? BreakerState.CLOSED : BreakerState.valueOf(state),
                Attr.number(item, FAILURES, 0), Attr.number(item, WINDOW_START, 0), Attr.number(item, OPENED_AT, 0),
                Attr.number(item, OPENINGS, 0), Attr.string(item, PROBE_OWNER), Attr.number(item, PROBE_UNTIL, 0),
                slots(item.get(IN_FLIGHT)));
    }

    private static Map<String, Long> slots(AttributeValue map) {
        if (map == null || !map.hasM()) {
            return Map.of();
        }
        Map<String, Long> slots = new HashMap<>();
        map.m().forEach((slot, until) -> slots.put(slot, Long.parseLong(until.n())));
        return slots;
    }

    /** Calls counted in flight at {@code now}: slots whose lease has not ended. */
    long inFlightAt(Instant now) {
        return inFlight.values().stream().filter(until -> until > now.toEpochMilli()).count();
    }

    /** Slots whose lease ended (their holders died or could not give them back): the next writer removes them. */
    List<String> endedSlots(Instant now) {
        return inFlight.entrySet().stream().filter(e -> e.getValue() <= now.toEpochMilli()).map(Map.Entry::getKey)
                .toList();
    }

    /** Whether a call at {@code now} is refused without a write: open and not yet due a probe, or a live probe. */
    boolean refuses(Instant now, Duration openFor) {
        return switch (state) {
            case CLOSED -> false;
            case OPEN -> now.toEpochMilli() < openedAt + openFor.toMillis();
            case HALF_OPEN -> now.toEpochMilli() < probeUntil;
        };
    }
}
