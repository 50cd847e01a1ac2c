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
        CONCURRENT,
        /**
         * The shopper clicks "pay" twice and the page sends each click under its own key: the
         * second 0–100 ms after the first, while the first is still running. Only the order links them.
         */
        DOUBLE_CLICK
    }

    /** What the shopper does when the bank asks it to authenticate (3-D Secure), in Stripe mode. */
    enum AtPrompt {
        /** The card asks for nothing. */
        NONE,
        /** Authenticates: the charge succeeds. */
        APPROVES,
        /** Fails authentication: the charge fails. */
        REFUSES,
        /** Never comes back: the payment awaits the customer, charged by nobody. */
        ABANDONS
    }

    /** Stripe's documented test payment methods the Stripe-mode workload pays with. */
    static final String VISA = "pm_card_visa";
    static final String DECLINED = "pm_card_chargeDeclined";
    static final String INSUFFICIENT_FUNDS = "pm_card_chargeDeclinedInsufficientFunds";
    static final String AUTHENTICATION_REQUIRED = "pm_card_authenticationRequired";

    /**
     * @param key the first submitter's first Idempotency-Key; see {@link #key(int)} and {@link #freshKey(int)}
     * @param reference the merchant's order id: one order, whatever keys pay it
     * @param shopper after a 5xx (the gateway's, or oncepay's own 503) or a timeout each of this
     *        order's submitters gives up on its key and pays the same order again under a fresh one,
     *        as a shopper clicking "pay" again does
     * @param paymentMethod the provider token the payment carries, or null (the generic PSP needs none)
     * @param customer the provider's customer ({@code cus_…}), or null
     * @param atPrompt what the shopper does if the card asks for authentication
     * @param respondAsync every request of the order asks {@code Prefer: respond-async}: oncepay queues
     *        the charge and answers 202, and the client polls the payment until its outcome
     */
    record Plan(int index, String tenant, String key, long amount, String currency, String reference,
            Behaviour behaviour, long secondSubmitDelayMs, boolean shopper, String paymentMethod, String customer,
            AtPrompt atPrompt, boolean respondAsync) {
        String body() {
            return "{\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"reference\":\"" + reference + "\""
                    + (paymentMethod == null ? "" : ",\"paymentMethod\":\"" + paymentMethod + "\"")
                    + (customer == null ? "" : ",\"customer\":\"" + customer + "\"") + "}";
        }

        int submitters() {
            return behaviour == Behaviour.NORMAL ? 1 : 2;
        }

        /** The key a submitter starts with: a double click's second click has a key of its own. */
        String key(int submitter) {
            return behaviour == Behaviour.DOUBLE_CLICK && submitter == 1 ? key + "-click" : key;
        }

        /** The shopper's n-th fresh key (n >= 1) for the same order. */
        String freshKey(int n) {
            return key + "-again-" + n;
        }
    }

    /**
     * The same plans, but {@code tenant}'s payments carry {@code pm_card_visa}: that tenant pays
     * through a Stripe account beside the generic PSP's (the drill's second account).
     */
    static List<Plan> onStripeAccount(List<Plan> plans, String tenant) {
        return plans.stream().map(p -> !p.tenant().equals(tenant) ? p : new Plan(p.index(), p.tenant(), p.key(),
                p.amount(), p.currency(), p.reference(), p.behaviour(), p.secondSubmitDelayMs(), p.shopper(), VISA,
                null, AtPrompt.NONE, p.respondAsync())).toList();
    }

    /** Share of orders whose shopper pays again under a fresh key after a 5xx or a timeout. */
    static final double SHOPPER_SHARE = 0.3;
    /** Share of orders double-clicked: two keys within 100 ms ({@link Behaviour#DOUBLE_CLICK}). */
    static final double DOUBLE_CLICK_SHARE = 0.1;

    private Workload() {
    }

    /**
     * @param stripe false: for the generic PSP, no payment method, no customer; true: pay with Stripe's test payment methods: 80 % {@code pm_card_visa}, 8 %
     *        {@code pm_card_chargeDeclined}, 4 % {@code …InsufficientFunds}, 8 %
     *        {@code pm_card_authenticationRequired} (the shopper approves 60 %, refuses 20 %,
     *        abandons 20 % of these); a customer on 30 %
     * @param asyncShare the share of orders whose requests ask {@code Prefer: respond-async} (0..1)
     */
    static List<Plan> generate(int payments, long seed, boolean stripe, double asyncShare) {
        Random random = new Random(seed);
        // Dice of their own, so keys, amounts and behaviours stay what they were for a seed.
        Random shoppers = new Random(seed * 131 + 11);
        Random cards = new Random(seed * 197 + 5);
        Random clicks = new Random(seed * 173 + 3);
        Random asyncs = new Random(seed * 151 + 13);
        List<Plan> plans = new ArrayList<>(payments);
        String run = Long.toHexString(seed) + "-" + Long.toHexString(random.nextLong() & 0xffffffL);
        for (int i = 0; i < payments; i++) {
            double b = random.nextDouble();
            Behaviour behaviour = b < 0.70 - DOUBLE_CLICK_SHARE ? Behaviour.NORMAL : b < 0.70 ? Behaviour.DOUBLE_CLICK
                    : b < 0.85 ? Behaviour.DOUBLE_SUBMIT : Behaviour.CONCURRENT;
            boolean shopper = shoppers.nextDouble() < SHOPPER_SHARE;
            boolean respondAsync = asyncs.nextDouble() < asyncShare;
            int clickGapMs = clicks.nextInt(101);
            String paymentMethod = null;
            String customer = null;
            AtPrompt atPrompt = AtPrompt.NONE;
            if (stripe) {
                double c = cards.nextDouble();
                paymentMethod = c < 0.80 ? VISA : c < 0.88 ? DECLINED : c < 0.92 ? INSUFFICIENT_FUNDS : AUTHENTICATION_REQUIRED;
                double p = cards.nextDouble();
                if (paymentMethod.equals(AUTHENTICATION_REQUIRED)) {
                    atPrompt = p < 0.6 ? AtPrompt.APPROVES : p < 0.8 ? AtPrompt.REFUSES : AtPrompt.ABANDONS;
                }
                customer = cards.nextDouble() < 0.3 ? "cus_drill" + Long.toHexString(seed) + "x" + i : null;
            }
            String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
            long amount = 100 + random.nextInt(99_900);
            String currency = CURRENCIES.get(random.nextInt(CURRENCIES.size()));
            int secondSubmitDelayMs = 50 + random.nextInt(400);
            plans.add(new Plan(i, tenant, "drill-" + run + "-" + i, amount, currency, "order_" + run + "_" + i, behaviour,
                    behaviour == Behaviour.DOUBLE_CLICK ? clickGapMs : secondSubmitDelayMs, shopper, paymentMethod,
                    customer, atPrompt, respondAsync));
        }
        return plans;
    }
}
