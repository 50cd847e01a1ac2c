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

    FaultControl(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
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

    /** Back to a healthy provider and the start of the seeded sequence, so runs repeat. */
    synchronized void reset() {
        faults = Faults.none();
        random = new Random(seed);
    }
}
