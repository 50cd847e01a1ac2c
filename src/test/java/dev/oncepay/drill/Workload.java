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

    record Plan(int index, String tenant, String key, long amount, String currency, String reference,
            Behaviour behaviour, long secondSubmitDelayMs) {
        String body() {
            return "{\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"reference\":\"" + reference + "\"}";
        }

        int submitters() {
            return behaviour == Behaviour.NORMAL ? 1 : 2;
        }
    }

    private Workload() {
    }

    static List<Plan> generate(int payments, long seed) {
        Random random = new Random(seed);
        List<Plan> plans = new ArrayList<>(payments);
        String run = Long.toHexString(seed) + "-" + Long.toHexString(random.nextLong() & 0xffffffL);
        for (int i = 0; i < payments; i++) {
            double b = random.nextDouble();
            Behaviour behaviour = b < 0.70 ? Behaviour.NORMAL : b < 0.85 ? Behaviour.DOUBLE_SUBMIT : Behaviour.CONCURRENT;
            plans.add(new Plan(i, TENANTS.get(random.nextInt(TENANTS.size())), "drill-" + run + "-" + i,
                    100 + random.nextInt(99_900), CURRENCIES.get(random.nextInt(CURRENCIES.size())),
                    "order_" + run + "_" + i, behaviour, 50 + random.nextInt(400)));
        }
        return plans;
    }
}
