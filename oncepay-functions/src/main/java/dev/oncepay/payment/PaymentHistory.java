package dev.oncepay.payment;

import java.util.List;
import java.util.Set;

/**
 * A payment as it stands, every move that brought it there, oldest first, and the ids of its
 * refunds (from the same read of its item).
 */
public record PaymentHistory(Payment payment, List<HistoryEntry> history, Set<String> refundIds) {
    public PaymentHistory {
        history = List.copyOf(history);
        refundIds = Set.copyOf(refundIds);
    }
}
