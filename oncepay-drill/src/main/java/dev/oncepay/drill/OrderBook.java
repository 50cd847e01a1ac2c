package dev.oncepay.drill;

import dev.oncepay.contract.Table;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which merchant order and which client key each oncepay payment belongs to, from every source
 * the drill has: the clients' answers (201/202/402 name the payment), the table (a key item names
 * its payment, a payment item its order), and the provider's wire (a charge request carries the
 * payment id and, in {@code description}, the order). A payment no answer named and no key item
 * points to (its key was released, or its run died before answering) is given the one key of its
 * order that had a request in flight when the payment appeared.
 */
final class OrderBook {
    private final Map<String, Recorder.PaymentRecord> orderOfReference = new HashMap<>();
    private final Map<String, Recorder.PaymentRecord> orderOfPayment = new HashMap<>();
    private final Map<String, String> keyOfPayment = new HashMap<>();
    private final Map<String, List<Recorder.Attempt>> postsOfKey = new HashMap<>();
    private final List<String> conflicts = new ArrayList<>();

    OrderBook(List<Recorder.PaymentRecord> records, Collection<Recorder.Attempt> attempts, Oracle.Snapshot table,
            List<WireTap.ChargeRequest> requests, Recorder recorder) {
        for (Recorder.PaymentRecord r : records) {
            orderOfReference.put(r.plan.reference(), r);
        }
        for (Recorder.Attempt a : attempts) {
            if (a.key() != null) {
                postsOfKey.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a);
            }
            if (a.paymentId() != null) {
                place(a.paymentId(), records.get(a.payment()), a.key(), "answer");
            }
        }
        for (Recorder.PaymentRecord r : records) {
            for (String key : r.keys) {
                Oracle.StoredKey item = table.keys().get(Table.keyItemId(r.plan.tenant(), key));
                if (item != null && item.paymentId() != null) {
                    place(item.paymentId(), r, key, "key item");
                }
            }
        }
        Map<String, Long> firstSeenMs = new HashMap<>();
        for (Oracle.StoredPayment p : table.payments().values()) {
            Recorder.PaymentRecord r = orderOfReference.get(p.reference());
            if (r != null && r.plan.tenant().equals(p.tenant())) {
                place(p.id(), r, null, "payment item");
            }
            firstSeenMs.put(p.id(), p.createdAtWallMs() - recorder.t0WallMs);
        }
        for (WireTap.ChargeRequest q : requests) {
            if (q.paymentId() == null) {
                continue;
            }
            Recorder.PaymentRecord r = q.order() == null ? null : orderOfReference.get(q.order());
            if (r != null) {
                place(q.paymentId(), r, null, "charge request");
            }
            firstSeenMs.putIfAbsent(q.paymentId(), recorder.msOf(q.atNanos()));
        }
        orderOfPayment.forEach((paymentId, r) -> {
            if (!keyOfPayment.containsKey(paymentId)) {
                String key = keyInFlight(r, firstSeenMs.get(paymentId));
                if (key != null) {
                    keyOfPayment.put(paymentId, key);
                }
            }
        });
    }

    private void place(String paymentId, Recorder.PaymentRecord order, String key, String source) {
        Recorder.PaymentRecord known = orderOfPayment.putIfAbsent(paymentId, order);
        if (known != null && known != order) {
            conflicts.add("payment " + paymentId + " belongs to order " + known.plan.reference() + " and, by its "
                    + source + ", to " + order.plan.reference());
        }
        if (key != null) {
            String knownKey = keyOfPayment.putIfAbsent(paymentId, key);
            if (knownKey != null && !knownKey.equals(key)) {
                conflicts.add("payment " + paymentId + " answered on key " + knownKey + " and, by its " + source
                        + ", on key " + key);
            }
        }
    }

    /** The order's only key, or the only one with a request in flight at {@code atMs}; else null. */
    private String keyInFlight(Recorder.PaymentRecord order, Long atMs) {
        if (order.keys.size() == 1) {
            return order.keys.get(0);
        }
        if (atMs == null) {
            return null;
        }
        Set<String> inFlight = new LinkedHashSet<>();
        for (String key : order.keys) {
            for (Recorder.Attempt a : posts(key)) {
                if (a.startMs() <= atMs && atMs <= a.endMs()) {
                    inFlight.add(key);
                }
            }
        }
        return inFlight.size() == 1 ? inFlight.iterator().next() : null;
    }

    Recorder.PaymentRecord orderOf(String paymentId) {
        return orderOfPayment.get(paymentId);
    }

    /** The client key that created {@code paymentId}, or null when it cannot be told. */
    String keyOf(String paymentId) {
        return keyOfPayment.get(paymentId);
    }

    Set<String> paymentsOf(String key) {
        Set<String> result = new LinkedHashSet<>();
        keyOfPayment.forEach((p, k) -> {
            if (k.equals(key)) {
                result.add(p);
            }
        });
        return result;
    }

    /** The client's POSTs with {@code key}, in the order they were recorded. */
    List<Recorder.Attempt> posts(String key) {
        return postsOfKey.getOrDefault(key, List.of());
    }

    /** Payments that two sources place in different orders or keys (never expected). */
    List<String> conflicts() {
        return conflicts;
    }
}
