package dev.oncepay.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Every charge the simulator executed and every refund it accepted, in execution order. Thread-safe. */
final class Ledger {

    private final List<Charge> charges = new ArrayList<>();
    private final List<Refund> refunds = new ArrayList<>();

    synchronized void record(Charge charge) {
        charges.add(charge);
    }

    synchronized List<Charge> all() {
        return List.copyOf(charges);
    }

    synchronized List<Charge> byReference(String reference) {
        return charges.stream().filter(c -> c.reference().equals(reference)).toList();
    }

    synchronized Optional<Charge> latest(String reference) {
        for (int i = charges.size() - 1; i >= 0; i--) {
            if (charges.get(i).reference().equals(reference)) {
                return Optional.of(charges.get(i));
            }
        }
        return Optional.empty();
    }

    synchronized Optional<Charge> charge(String id) {
        return charges.stream().filter(c -> c.id().equals(id)).findFirst();
    }

    synchronized void record(Refund refund) {
        refunds.add(refund);
    }

    /** Replaces the refund with {@code refund}'s id (a pending one that settled). */
    synchronized void update(Refund refund) {
        refunds.replaceAll(r -> r.id().equals(refund.id()) ? refund : r);
    }

    synchronized List<Refund> refunds() {
        return List.copyOf(refunds);
    }

    synchronized Optional<Refund> refund(String id) {
        return refunds.stream().filter(r -> r.id().equals(id)).findFirst();
    }

    synchronized List<Refund> refundsByReference(String reference) {
        // A Stripe refund made without our refund id has no reference.
        return refunds.stream().filter(r -> reference.equals(r.reference())).toList();
    }

    /** The amount of {@code chargeId} that succeeded or pending refunds hold. */
    synchronized long refunded(String chargeId) {
        return refunds.stream().filter(r -> r.charge().equals(chargeId) && r.status().holdsAmount())
                .mapToLong(Refund::amount).sum();
    }

    synchronized void clear() {
        charges.clear();
        refunds.clear();
    }
}
