package dev.oncepay.api;

import dev.oncepay.payment.HistoryEntry;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentHistory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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

    static Map<String, Object> detail(PaymentHistory found) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("payment", summary(found.payment()));
        view.put("history", found.history().stream().map(AdminViews::entry).toList());
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
        Map<String, Object> actor = new LinkedHashMap<>();
        actor.put("kind", lower(e.actor().kind().name()));
        actor.put("id", e.actor().id());
        view.put("actor", actor);
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
