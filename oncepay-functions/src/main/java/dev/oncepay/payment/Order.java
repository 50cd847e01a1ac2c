package dev.oncepay.payment;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A guarded order as its item holds it: the payment bound to it (the one that may charge it now)
 * and every payment that was ever bound to it. A payment that never bound it (refused, or its run
 * died before the bind) was never sent for it and is not among them.
 *
 * @param id the order item's key ({@code order#<tenant>#<sha256(reference)>}): no reference in clear
 * @param boundPaymentId empty while no payment is bound (its last one was unbound unsent)
 * @param paymentIds every payment bound to the order and not unbound unsent, by id
 */
public record Order(String id, String tenant, Optional<String> boundPaymentId, Optional<Instant> boundAt,
        List<String> paymentIds) {
    public Order {
        paymentIds = List.copyOf(paymentIds);
    }
}
