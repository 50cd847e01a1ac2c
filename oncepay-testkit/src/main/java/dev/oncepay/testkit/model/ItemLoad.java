package dev.oncepay.testkit.model;

/**
 * What one item (its own partition in the model) served: totals, the busiest virtual second of each
 * kind, and the throttled requests. Units are read and write request units as DynamoDB bills them.
 *
 * @param seconds virtual seconds from the item's first request to its last, both included: the
 *        denominator of the means, so quiet seconds between bursts count as quiet
 */
public record ItemLoad(String pk, long reads, double readUnits, long writes, long writeUnits,
        long maxReadsPerSecond, double maxReadUnitsPerSecond, long maxWritesPerSecond, long maxWriteUnitsPerSecond,
        long throttledReads, long throttledWrites, long seconds) {

    public double meanReadsPerSecond() {
        return seconds == 0 ? 0 : (double) reads / seconds;
    }

    public double meanWritesPerSecond() {
        return seconds == 0 ? 0 : (double) writes / seconds;
    }

    public double meanReadUnitsPerSecond() {
        return seconds == 0 ? 0 : readUnits / seconds;
    }

    public double meanWriteUnitsPerSecond() {
        return seconds == 0 ? 0 : (double) writeUnits / seconds;
    }

    public long throttled() {
        return throttledReads + throttledWrites;
    }
}
