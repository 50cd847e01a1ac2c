package dev.oncepay.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Every charge the simulator executed, in execution order. Thread-safe. */
final class Ledger {

    private final List<Charge> charges = new ArrayList<>();

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

    synchronized void clear() {
        charges.clear();
    }
}
