package dev.oncepay.admin;

import dev.oncepay.payment.Payment;
import java.util.List;

/** One page of payments that need attention, newest first; {@code nextCursor} {@code null} at the end. */
public record AttentionList(List<Payment> items, String nextCursor) {
}
