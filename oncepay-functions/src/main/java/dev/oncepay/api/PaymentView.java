package dev.oncepay.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.payment.CustomerAction;
import dev.oncepay.payment.Order;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The payment JSON of the HTTP contract, in a fixed field order so equal payments are equal bytes. */
final class PaymentView {
    /** A payment whose provider waits for the customer (3-D Secure): still unsettled, and why. */
    static final String REQUIRES_ACTION = "requires_action";
    private static final ObjectMapper JSON = new ObjectMapper();

    private PaymentView() {
    }

    static Map<String, Object> of(Payment p) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", p.id());
        view.put("status", p.awaitsCustomer() ? REQUIRES_ACTION : p.status().apiName());
        if (p.status() == PaymentStatus.NEEDS_REVIEW && p.reviewReason() != null) {
            view.put("reviewReason", p.reviewReason().code());
        }
        view.put("amount", p.amount());
        view.put("currency", p.currency());
        view.put("reference", p.reference());
        view.put("providerPaymentId", p.providerPaymentId());
        if (p.awaitsCustomer()) {
            // What the merchant's front end hands to the provider's SDK to let the customer finish.
            CustomerAction action = p.customerAction();
            view.put("clientSecret", action.clientSecret());
            view.put("nextAction", nextAction(action));
        }
        view.put("createdAt", p.createdAt().toString());
        view.put("updatedAt", p.updatedAt().toString());
        return view;
    }

    /**
     * The payment as {@code GET /payments/{id}} shows it: with its order's binding for a tenant
     * that guards orders ({@code order.paymentId}: the payment that may charge the order, this one
     * or another; {@code null} while none is bound).
     */
    static Map<String, Object> withOrder(Payment p, Optional<Optional<Order>> order) {
        Map<String, Object> view = of(p);
        order.ifPresent(o -> view.put("order", binding(o)));
        return view;
    }

    /** An order's binding: the bound payment and since when, {@code null}s while none is bound. */
    static Map<String, Object> binding(Optional<Order> order) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("paymentId", order.flatMap(Order::boundPaymentId).orElse(null));
        view.put("boundAt", order.flatMap(Order::boundAt).map(Object::toString).orElse(null));
        return view;
    }

    /** The provider's next action as it sent it; {@code null} if it sent none we can pass on as JSON. */
    private static JsonNode nextAction(CustomerAction action) {
        try {
            return action.nextActionJson() == null ? null : JSON.readTree(action.nextActionJson());
        } catch (Exception unreadable) {
            return null;
        }
    }
}
