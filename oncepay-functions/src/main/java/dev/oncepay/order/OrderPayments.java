package dev.oncepay.order;

import dev.oncepay.payment.Order;
import dev.oncepay.payment.Payment;
import java.util.List;

/** A guarded order and its payments as they stand, oldest first (for operators). */
public record OrderPayments(Order order, List<Payment> payments) {
    public OrderPayments {
        payments = List.copyOf(payments);
    }
}
