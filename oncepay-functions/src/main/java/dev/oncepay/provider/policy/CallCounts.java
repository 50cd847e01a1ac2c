package dev.oncepay.provider.policy;

import java.util.Collection;

/**
 * Calls counted for one breaker: all of them, the failed ones, and the slow ones (answered, but
 * slower than {@code slow-call}).
 */
record CallCounts(long calls, long failed, long slow) {
    static final CallCounts NONE = new CallCounts(0, 0, 0);

    CallCounts plus(CallCounts other) {
        return new CallCounts(calls + other.calls, failed + other.failed, slow + other.slow);
    }

    boolean isEmpty() {
        return calls == 0;
    }

    double failureRatio() {
        return calls == 0 ? 0 : (double) failed / calls;
    }

    double slowRatio() {
        return calls == 0 ? 0 : (double) slow / calls;
    }

    /**
     * The breaker's window over the shards: the newest whole seconds, summed over every shard,
     * back from {@code now} until they hold at least {@code windowCalls} calls, never older than
     * {@code oldest} seconds back, never before {@code from} (the second of the last closing).
     * At a thousand calls a second that is the current second; at a few a second, the last few.
     */
    static CallCounts window(Collection<BreakerShard> shards, long now, long from, int windowCalls, int oldest) {
        CallCounts sum = NONE;
        for (long second = now; second > now - oldest && second > from && sum.calls < windowCalls; second--) {
            for (BreakerShard shard : shards) {
                sum = sum.plus(shard.in(second));
            }
        }
        return sum;
    }
}
