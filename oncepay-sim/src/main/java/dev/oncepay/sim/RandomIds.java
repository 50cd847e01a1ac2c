package dev.oncepay.sim;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Suffixes for object ids ({@code ch_…}, {@code evt_…}). They must be unique, not repeatable, so
 * they deliberately do not use the simulator's seed.
 */
final class RandomIds {

    private static final char[] ALPHABET =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    private RandomIds() {
    }

    static String next() {
        char[] id = new char[24];
        for (int i = 0; i < id.length; i++) {
            id[i] = ALPHABET[ThreadLocalRandom.current().nextInt(ALPHABET.length)];
        }
        return new String(id);
    }
}
