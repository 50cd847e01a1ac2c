package dev.oncepay.api;

import dev.oncepay.admin.EventDeliveries;
import dev.oncepay.delivery.DeliveryRecord;
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

    /** One event at one endpoint, as {@code GET /admin/payments/{id}/deliveries} lists it. */
    static Map<String, Object> delivery(EventDeliveries.DeliveryLine line) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("eventId", line.event().id());
        view.put("type", line.event().type().wireName());
        view.put("sequence", line.event().sequence());
        view.put("objectId", line.event().objectId());
        view.put("endpoint", line.endpoint());
        view.put("eventAt", line.event().at().toString());
        line.record().ifPresentOrElse(r -> attempts(view, r), () -> {
            view.put("status", "queued");
            view.put("attempts", 0);
        });
        return view;
    }

    /** One delivery record, as {@code GET /admin/endpoints/{tenant}/{endpoint}/deliveries} lists it. */
    static Map<String, Object> delivery(DeliveryRecord record) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("eventId", record.eventId());
        view.put("type", record.eventType());
        view.put("sequence", record.sequence());
        view.put("objectId", record.objectId());
        view.put("paymentId", record.paymentId());
        view.put("endpoint", record.endpoint());
        view.put("eventAt", record.eventAt().toString());
        attempts(view, record);
        return view;
    }

    private static void attempts(Map<String, Object> view, DeliveryRecord r) {
        view.put("status", lower(r.status().name()));
        view.put("attempts", r.attempts());
        putIfPresent(view, "lastAttemptAt", r.lastAttemptAt() == null ? null : r.lastAttemptAt().toString());
        putIfPresent(view, "lastAnswer", r.lastAnswer());
        r.nextAttemptAt().ifPresent(at -> view.put("nextAttemptAt", at.toString()));
        r.deliveredAt().ifPresent(at -> view.put("deliveredAt", at.toString()));
    }

    static Map<String, Object> redelivery(EventDeliveries.Redelivery done) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("queued", done.queued());
        done.nextSince().ifPresent(at -> view.put("nextSince", at.toString()));
        return view;
    }
}
