package dev.oncepay.provider.policy;

import dev.oncepay.contract.Attr;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ProviderOperation;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One fleet breaker's decided state, pk {@code breaker#<provider>/<account>#<operation>}: the item
 * whose conditional writes make each transition exactly once. Sandboxes do not read it on the
 * healthy path; each reads its {@link BreakerShard}, which carries a copy of everything here but
 * the probe's lease. An absent item is a closed breaker at version 0.
 *
 * @param state where the breaker stands
 * @param version one more at each opening and each closing: a shard's copy only moves forward
 * @param openedAt epoch millis of the last opening (closed→open or half-open→open)
 * @param openings how many times it opened, ever: one open period per value
 * @param windowFrom epoch millis of the last closing: calls counted before it are not in the window
 * @param probeOwner who holds the half-open probe lease ({@code null} outside half-open)
 * @param probeUntil epoch millis at which that lease ends and another sandbox may take the probe over
 */
record BreakerItem(BreakerState state, long version, long openedAt, long openings, long windowFrom, String probeOwner,
        long probeUntil) {

    static final String PREFIX = "breaker#";
    static final String KIND = "breaker";
    static final String STATE = "breakerState";
    static final String VERSION = "breakerVersion";
    static final String OPENED_AT = "openedAt";
    static final String OPENINGS = "openings";
    static final String WINDOW_FROM = "windowFrom";
    static final String PROBE_OWNER = "probeOwner";
    static final String PROBE_UNTIL = "probeUntil";

    static final BreakerItem ABSENT = new BreakerItem(BreakerState.CLOSED, 0, 0, 0, 0, null, 0);

    static String pk(ProviderAccount account, ProviderOperation operation) {
        return PREFIX + account + "#" + operation.id();
    }

    static BreakerItem from(Map<String, AttributeValue> item) {
        if (item == null || item.isEmpty()) {
            return ABSENT;
        }
        String state = Attr.string(item, STATE);
        return new BreakerItem(state == null ? BreakerState.CLOSED : BreakerState.valueOf(state),
                Attr.number(item, VERSION, 0), Attr.number(item, OPENED_AT, 0), Attr.number(item, OPENINGS, 0),
                Attr.number(item, WINDOW_FROM, 0), Attr.string(item, PROBE_OWNER), Attr.number(item, PROBE_UNTIL, 0));
    }

    /** What a shard's copy of this decision holds: a half-open breaker is open there, and no probe is claimed yet. */
    BreakerItem asShardCopy() {
        return new BreakerItem(state == BreakerState.HALF_OPEN ? BreakerState.OPEN : state, version, openedAt, openings,
                windowFrom, null, 0);
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
