package dev.oncepay.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** The seeded workload: N logical payments, each with its key, body and client behaviour. */
final class Workload {
    static final List<String> TENANTS = List.of("merchant-a", "merchant-b", "merchant-c");
    private static final List<String> CURRENCIES = List.of("EUR", "EUR", "EUR", "USD", "GBP");

    /** How the client submits a payment. */
    enum Behaviour {
        /** One submitter. */
        NORMAL,
        /** The user clicks twice: a second submitter with the same key a few hundred ms later. */
        DOUBLE_SUBMIT,
        /** Two threads fire the same request at the same instant. */
        CONCURRENT
    }

    /**
     * @param key the first Idempotency-Key; a shopper's later ones are {@link #freshKey(int)}
     * @param reference the merchant's order id: one order, whatever keys pay it
     * @param shopper after a gateway error or a timeout this client gives up on its key and pays the
     *        same order again under a fresh one, as a shopper clicking "pay" again does (one
     *        submitter only: a second tab still retrying the old key could legitimately complete it)
     */
    record Plan(int index, String tenant, String key, long amount, String currency, String reference,
            Behaviour behaviour, long secondSubmitDelayMs, boolean shopper) {
        String body() {
            return "{\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"reference\":\"" + reference + "\"}";
        }

        int submitters() {
            return behaviour == Behaviour.NORMAL ? 1 : 2;
        }

        /** The shopper's n-th fresh key (n >= 1) for the same order. */
        String freshKey(int n) {
            return key + "-again-" + n;
        }
    }

    /** Share of single-submitter payments made by shoppers who pay again under a fresh key. */
    static final double SHOPPER_SHARE = 0.3;

    private Workload() {
    }

    static List<Plan> generate(int payments, long seed) {
        Random random = new Random(seed);
        // A dice of its own, so keys, amounts and behaviours stay what they were for a seed.
        Random shoppers = new Random(seed * 131 + 11);
        List<Plan> plans = new ArrayList<>(payments);
        String run = Long.toHexString(seed) + "-" + Long.toHexString(random.nextLong() & 0xffffffL);
        for (int i = 0; i < payments; i++) {
            double b = random.nextDouble();
            Behaviour behaviour = b < 0.70 ? Behaviour.NORMAL : b < 0.85 ? Behaviour.DOUBLE_SUBMIT : Behaviour.CONCURRENT;
            boolean shopper = shoppers.nextDouble() < SHOPPER_SHARE && behaviour == Behaviour.NORMAL;
            plans.add(new Plan(i, TENANTS.get(random.nextInt(TENANTS.size())), "drill-" + run + "-" + i,
                    100 + random.nextInt(99_900), CURRENCIES.get(random.nextInt(CURRENCIES.size())),
                    "order_" + run + "_" + i, behaviour, 50 + random.nextInt(400), shopper));
        }
        return plans;
    }
}
