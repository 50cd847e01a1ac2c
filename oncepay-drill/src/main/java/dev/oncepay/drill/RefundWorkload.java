package dev.oncepay.drill;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The seeded refunds: for a quarter of the orders the shopper returns money once the payment has
 * succeeded, in one of a few ways ({@link Kind}). Only orders paid through the generic API are
 * refunded: the audit joins a provider refund to its payment through the generic ledger's charge
 * id, which a Stripe refund names by its charge ({@code ch_…}), not its PaymentIntent. Their dice
 * are drawn all the same, so the refunds of an order are the same for a seed whatever the provider.
 */
final class RefundWorkload {
    /** Share of the orders whose shopper asks for money back. */
    static final double SHARE = 0.25;

    /** How the shopper asks. */
    enum Kind {
        /** One partial refund: a third or half of the payment. */
        ONCE,
        /** One partial refund sent twice under one key, the second a moment later (a retry). */
        RETRY,
        /** Two refunds of a third each, one after the other, each under its own key: both fit. */
        TWO_KEYS,
        /** Three refunds of half the payment each, under three keys, released at one instant: two fit. */
        CONCURRENT,
        /** A third, then "everything left" (no amount). */
        REST
    }

    /**
     * One refund request.
     *
     * @param key the Idempotency-Key, kept on every retry
     * @param amount minor units asked, or null for everything left
     * @param submitters 2 when the same request is sent twice under its key
     * @param secondSubmitDelayMs how long after the first the second submitter sends it
     */
    record Request(int order, int index, String key, Long amount, int submitters, long secondSubmitDelayMs) {
        String body(String reference) {
            return "{" + (amount == null ? "" : "\"amount\":" + amount + ",") + "\"reason\":\"requested_by_customer\","
                    + "\"metadata\":{\"order\":\"" + reference + "\",\"request\":\"" + index + "\"}}";
        }
    }

    /**
     * An order's refunds.
     *
     * @param together the requests are released at one instant (else one after the other)
     */
    record Plan(int order, Kind kind, boolean together, List<Request> requests) {
    }

    private RefundWorkload() {
    }

    /** The refunds of the orders, by order index. */
    static Map<Integer, Plan> generate(List<Workload.Plan> orders, long seed) {
        Random random = new Random(seed * 211 + 13);
        Map<Integer, Plan> result = new LinkedHashMap<>();
        for (Workload.Plan o : orders) {
            boolean refunded = random.nextDouble() < SHARE;
            double k = random.nextDouble();
            boolean half = random.nextBoolean();
            long delayMs = 50 + random.nextInt(400);
            if (!refunded || o.paymentMethod() != null) {
                continue;
            }
            Kind kind = k < 0.3 ? Kind.ONCE : k < 0.5 ? Kind.RETRY : k < 0.7 ? Kind.TWO_KEYS : k < 0.85
                    ? Kind.CONCURRENT : Kind.REST;
            long third = Math.max(1, o.amount() / 3);
            List<Request> requests = new ArrayList<>();
            String key = o.key() + "-refund-";
            switch (kind) {
                case ONCE -> requests.add(new Request(o.index(), 0, key + 0, half ? o.amount() / 2 : third, 1, 0));
                case RETRY -> requests.add(new Request(o.index(), 0, key + 0, third, 2, delayMs));
                case TWO_KEYS, REST -> {
                    requests.add(new Request(o.index(), 0, key + 0, third, 1, 0));
                    requests.add(new Request(o.index(), 1, key + 1, kind == Kind.REST ? null : third, 1, 0));
                }
                case CONCURRENT -> {
                    for (int i = 0; i < 3; i++) {
                        requests.add(new Request(o.index(), i, key + i, Math.max(1, o.amount() / 2), 1, 0));
                    }
                }
            }
            result.put(o.index(), new Plan(o.index(), kind, kind == Kind.CONCURRENT, List.copyOf(requests)));
        }
        return result;
    }
}
