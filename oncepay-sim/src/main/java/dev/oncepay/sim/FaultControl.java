package dev.oncepay.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Objects;
import java.util.Random;

/** The current {@link Faults} and the seeded dice they are rolled with. Thread-safe. */
final class FaultControl {

    private final long seed;
    private volatile Faults faults = Faults.none();
    private volatile Random random;
    private volatile Random lookupRandom;
    private volatile Random refundRandom;

    FaultControl(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
        this.lookupRandom = new Random(lookupSeed(seed));
        this.refundRandom = new Random(refundSeed(seed));
    }

    Faults current() {
        return faults;
    }

    void set(Faults newFaults) {
        faults = Objects.requireNonNull(newFaults, "faults");
    }

    /** @throws IllegalArgumentException when the patch is invalid; nothing changes then */
    synchronized Faults merge(JsonNode patch, ObjectMapper json) {
        faults = faults.merge(patch, json);
        return faults;
    }

    FaultPlan roll() {
        return faults.roll(random);
    }

    /** From the refunds' own dice, so refunds never shift the charges' faults. */
    FaultPlan rollRefund() {
        return faults.rollRefund(refundRandom);
    }

    LookupPlan rollLookup() {
        return faults.rollLookup(lookupRandom);
    }

    /** Back to a healthy provider and the start of the seeded sequence, so runs repeat. */
    synchronized void reset() {
        faults = Faults.none();
        random = new Random(seed);
        lookupRandom = new Random(lookupSeed(seed));
        refundRandom = new Random(refundSeed(seed));
    }

    /** The lookups' own sequence (the webhooks use seed + 1). */
    private static long lookupSeed(long seed) {
        return seed + 2;
    }

    /** The refunds' own sequence (seed + 3 is Stripe's webhooks'). */
    private static long refundSeed(long seed) {
        return seed + 4;
    }
}
