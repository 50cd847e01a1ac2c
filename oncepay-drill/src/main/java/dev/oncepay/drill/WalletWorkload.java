package dev.oncepay.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The drill's seeded wallet traffic, mixed into the payments' workload: per tenant a few
 * wallets, each opened by a credit, then credits and debits in a shuffled order that several
 * workers take at once, so debits of one wallet race each other and some exceed its balance.
 */
final class WalletWorkload {
    static final int WALLETS_PER_TENANT = 2;
    static final String CURRENCY = "EUR";
    /** A debit no wallet of the drill can cover (openings and credits stay far below it). */
    static final long OVERDRAW = 50_000_000;

    enum Kind {
        CREDIT("credits"),
        DEBIT("debits");

        /** The last segment of its route, {@code /wallets/{walletId}/<segment>}. */
        final String segment;

        Kind(String segment) {
            this.segment = segment;
        }
    }

    /**
     * One operation a client asks for.
     *
     * @param key the first Idempotency-Key; a shopper's later ones are {@link #freshKey(int)}
     * @param reference unique per key (a fresh key carries {@link #freshReference(int)}), so the
     *        verdict can tell through the API alone which key an entry belongs to
     * @param behaviour one submitter, a second one with the same key a little later, or two at once
     * @param shopper after a gateway error or a timeout the client asks again under a fresh key
     * @param opening the wallet's first credit: sent before the mixed traffic starts
     */
    record Plan(int index, String tenant, String walletId, Kind kind, long amount, String key, String reference,
            Workload.Behaviour behaviour, long secondSubmitDelayMs, boolean shopper, boolean opening) {
        String body(String reference) {
            return "{\"amount\":" + amount + ",\"currency\":\"" + CURRENCY + "\",\"reference\":\"" + reference + "\"}";
        }

        int submitters() {
            return behaviour == Workload.Behaviour.NORMAL ? 1 : 2;
        }

        String freshKey(int n) {
            return key + "-again-" + n;
        }

        String freshReference(int n) {
            return reference + "-again-" + n;
        }
    }

    private WalletWorkload() {
    }

    /**
     * @param operations mixed credits and debits after the openings (about 1 in 3 a credit); debits
     *        of 100..6000 against openings of 5000..15000, so a share is refused with 402, and
     *        one debit per wallet that no balance covers
     */
    static List<Plan> generate(int operations, long seed) {
        Random random = new Random(seed * 173 + 29); // dice of its own: the payments' plans stay what they were
        String run = Long.toHexString(seed) + Long.toHexString(random.nextLong() & 0xffffL);
        List<Plan> plans = new ArrayList<>();
        List<String[]> wallets = new ArrayList<>();
        for (String tenant : Workload.TENANTS) {
            for (int w = 0; w < WALLETS_PER_TENANT; w++) {
                String walletId = "wal_drill_" + run + "_" + w;
                wallets.add(new String[] {tenant, walletId});
                plans.add(plan(plans.size(), tenant, walletId, Kind.CREDIT, 5000 + random.nextInt(10_001), run,
                        Workload.Behaviour.NORMAL, 0, false, true));
            }
        }
        for (int i = 0; i < operations; i++) {
            boolean overdraw = i < wallets.size(); // each wallet once: more than it can ever hold, always 402
            String[] wallet = overdraw ? wallets.get(i) : wallets.get(random.nextInt(wallets.size()));
            Kind kind = !overdraw && random.nextDouble() < 0.35 ? Kind.CREDIT : Kind.DEBIT;
            long amount = overdraw ? OVERDRAW : kind == Kind.CREDIT ? 100 + random.nextInt(2901) : 100 + random.nextInt(5901);
            double b = random.nextDouble();
            Workload.Behaviour behaviour = b < 0.70 ? Workload.Behaviour.NORMAL
                    : b < 0.85 ? Workload.Behaviour.DOUBLE_SUBMIT : Workload.Behaviour.CONCURRENT;
            boolean shopper = behaviour == Workload.Behaviour.NORMAL && random.nextDouble() < Workload.SHOPPER_SHARE;
            plans.add(plan(plans.size(), wallet[0], wallet[1], kind, amount, run, behaviour, 50 + random.nextInt(400),
                    shopper, false));
        }
        // The overdrafts among the rest, at seeded places.
        List<Plan> mixed = new ArrayList<>(plans.subList(wallets.size(), plans.size()));
        java.util.Collections.shuffle(mixed, random);
        List<Plan> result = new ArrayList<>(plans.subList(0, wallets.size()));
        result.addAll(mixed);
        return result;
    }

    private static Plan plan(int index, String tenant, String walletId, Kind kind, long amount, String run,
            Workload.Behaviour behaviour, long delayMs, boolean shopper, boolean opening) {
        return new Plan(index, tenant, walletId, kind, amount, "drill-wallet-" + run + "-" + index,
                "wop_" + run + "_" + index, behaviour, delayMs, shopper, opening);
    }
}
