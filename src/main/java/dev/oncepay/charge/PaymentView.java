package dev.oncepay.charge;

import dev.oncepay.payment.Payment;
import java.util.LinkedHashMap;
import java.util.Map;

/** The payment JSON of the HTTP contract, in a fixed field order so equal payments are equal bytes. */
final class PaymentView {
    private PaymentView() {
    }

    static Map<String, Object> of(Payment p) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", p.id());
        view.put("status", p.status().apiName());
        view.put("amount", p.amount());
        view.put("currency", p.currency());
        view.put("reference", p.reference());
        view.put("providerPaymentId", p.providerPaymentId());
        view.put("createdAt", p.createdAt().toString());
        view.put("updatedAt", p.updatedAt().toString());
        return view;
    }
}
