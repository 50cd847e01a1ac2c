package dev.oncepay.api;

import dev.oncepay.order.OrderPayments;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.HistoryEntry;
import dev.oncepay.payment.RefundRepository.RefundRecord;
import dev.oncepay.payment.RefundStep;
import dev.oncepay.payment.Order;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentHistory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The operator API's JSON: a payment's summary (its precise internal status, unlike the public
 * view's) and its history, in a fixed field order, absent values omitted. Never a client secret,
 * payment method or customer token: an operator needs none of them to settle a payment.
 */
final class AdminViews {
    private AdminViews() {
    }

    static Map<String, Object> summary(Payment p) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", p.id());
        view.put("tenant", p.tenant());
        view.put("status", lower(p.status().name()));
        view.put("amount", p.amount());
        view.put("currency", p.currency());
        putIfPresent(view, "reference", p.reference());
        view.put("provider", p.providerAccount().provider());
        view.put("providerAccount", p.providerAccount().account());
        putIfPresent(view, "providerPaymentId", p.providerPaymentId());
        putIfPresent(view, "declineCode", p.declineCode());
        putIfPresent(view, "statusReason", p.statusReason());
        view.put("checkAttempts", p.checkAttempts());
        view.put("createdAt", p.createdAt().toString());
        view.put("updatedAt", p.updatedAt().toString());
        return view;
    }

    /**
     * A payment with its history, for a tenant that guards orders its order's binding and payments,
     * and, once it has any, its refunds with every step each made.
     */
    static Map<String, Object> detail(PaymentHistory found, Optional<Optional<Order>> order, List<RefundRecord> refunds) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("payment", summary(found.payment()));
        order.ifPresent(o -> view.put("order", order(o)));
        view.put("history", found.history().stream().map(AdminViews::entry).toList());
        if (!refunds.isEmpty()) {
            view.put("refunds", refunds.stream().map(AdminViews::refund).toList());
        }
        return view;
    }

    private static Map<String, Object> refund(RefundRecord found) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("refund", RefundView.of(found.refund()));
        view.put("history", found.history().stream().map(AdminViews::step).toList());
        return view;
    }

    private static Map<String, Object> step(RefundStep s) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("at", s.at().toString());
        if (s.from() != null) {
            view.put("from", lower(s.from().name()));
        }
        view.put("to", lower(s.to().name()));
        view.put("actor", actor(s.actor()));
        putIfPresent(view, "reason", s.reason());
        putIfPresent(view, "providerRefundId", s.providerRefundId());
        putIfPresent(view, "failureCode", s.failureCode());
        return view;
    }

    private static Map<String, Object> actor(Actor actor) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("kind", lower(actor.kind().name()));
        view.put("id", actor.id());
        return view;
    }

    /** {@code GET /admin/orders?tenant=&reference=}: the order's binding and its payments, oldest first. */
    static Map<String, Object> order(String tenant, String reference, OrderPayments found) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("tenant", tenant);
        view.put("reference", reference);
        view.putAll(PaymentView.binding(Optional.of(found.order())));
        view.put("payments", found.payments().stream().map(AdminViews::summary).toList());
        return view;
    }

    private static Map<String, Object> order(Optional<Order> order) {
        Map<String, Object> view = PaymentView.binding(order);
        view.put("paymentIds", order.map(Order::paymentIds).orElse(List.of()));
        return view;
    }

    static Map<String, Object> page(List<Payment> items, String nextCursor) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("items", items.stream().map(AdminViews::summary).toList());
        view.put("nextCursor", nextCursor);
        return view;
    }

    private static Map<String, Object> entry(HistoryEntry e) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("at", e.at().toString());
        if (e.from() != null) {
            view.put("from", lower(e.from().name()));
        }
        view.put("to", lower(e.to().name()));
        view.put("actor", actor(e.actor()));
        putIfPresent(view, "reason", e.reason());
        putIfPresent(view, "providerPaymentId", e.providerPaymentId());
        putIfPresent(view, "declineCode", e.declineCode());
        return view;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    private static void putIfPresent(Map<String, Object> view, String field, Object value) {
        if (value != null) {
            view.put(field, value);
        }
    }
}
