package dev.oncepay.provider.policy;

import java.security.SecureRandom;
import java.util.Random;

/**
 * The random source of backoff jitter, safe across a SnapStart restore. Every sandbox restored
 * from one snapshot starts with the same memory: a generator seeded at init would draw the same
 * "random" waits in all of them, and a fleet that retries in step is what jitter exists to prevent.
 * {@code ThreadLocalRandom} has that flaw (its per-thread seeds and the seeder of new threads are in
 * the snapshot), so the waits come from here, and {@code startup.SnapStartHooks} calls {@link #reseed()}
 * after a restore. The seed comes from {@link SecureRandom}, whose default on Linux (NativePRNG)
 * mixes in {@code /dev/urandom} at each draw, which the restored VM's kernel has reseeded.
 *
 * <p>{@link Random} is thread-safe (a compare-and-set on its seed); jitter is drawn only before a
 * retry or a deferral, so contention is no concern.
 */
public final class Jitter {
    private static final SecureRandom SEEDS = new SecureRandom();
    private static volatile Random random = new Random(SEEDS.nextLong());

    private Jitter() {
    }

    /** Uniform in {@code [0, bound)}; {@code bound} must be positive. */
    public static long nextLong(long bound) {
        return random.nextLong(bound);
    }

    /** A new generator from a fresh seed: what restored sandboxes draw from now differs between them. */
    public static void reseed() {
        random = new Random(SEEDS.nextLong());
    }

    /** The generator in use, for a test to copy (it is {@link java.io.Serializable}) as a snapshot would. */
    public static Random current() {
        return random;
    }
}
