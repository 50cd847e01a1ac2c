package dev.oncepay.payment;

import java.util.List;

/** A payment as it stands, and every move that brought it there, oldest first. */
public record PaymentHistory(Payment payment, List<HistoryEntry> history) {
    public PaymentHistory {
        history = List.copyOf(history);
    }
}
