package dev.oncepay.api;

import dev.oncepay.payment.Payment;
import dev.oncepay.payment.Refund;
import dev.oncepay.payment.RefundRepository.RefundRecord;
import dev.oncepay.payment.RefundStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The refund JSON of the HTTP contract, in a fixed field order so equal refunds are equal bytes. */
final class RefundView {
    /** {@code refundStatus} of a payment: nothing, part, or all of it refunded (succeeded refunds only). */
    static final String NONE = "none";
    static final String PARTIALLY_REFUNDED = "partially_refunded";
    static final String REFUNDED = "refunded";

    private RefundView() {
    }

    static Map<String, Object> of(Refund r) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", r.id());
        view.put("paymentId", r.paymentId());
        view.put("status", r.status().apiName());
        view.put("amount", r.amount());
        view.put("currency", r.currency());
        view.put("reason", r.reason());
        view.put("metadata", r.metadata());
        view.put("providerRefundId", r.providerRefundId());
        view.put("failureCode", r.status() == RefundStatus.FAILED ? r.failureCode() : null);
        view.put("createdAt", r.createdAt().toString());
        view.put("updatedAt", r.updatedAt().toString());
        return view;
    }

    static String location(Refund r) {
        return PaymentsHttp.COLLECTION + "/" + r.paymentId() + RefundsHttp.SEGMENT + "/" + r.id();
    }

    /**
     * What a payment's view adds for its refunds: the amount refunded (succeeded refunds), what is
     * under way (pending), the payment's refund status, and every refund, oldest first.
     */
    static void addTo(Map<String, Object> paymentView, Payment payment, List<RefundRecord> refunds) {
        long refunded = sum(refunds, RefundStatus.SUCCEEDED);
        long pending = sum(refunds, RefundStatus.PENDING) + sum(refunds, RefundStatus.UNKNOWN);
        paymentView.put("amountRefunded", refunded);
        paymentView.put("amountRefundPending", pending);
        paymentView.put("refundStatus", refunded == 0 ? NONE : refunded >= payment.amount() ? REFUNDED
                : PARTIALLY_REFUNDED);
        paymentView.put("refunds", refunds.stream().map(r -> of(r.refund())).toList());
    }

    private static long sum(List<RefundRecord> refunds, RefundStatus status) {
        return refunds.stream().map(RefundRecord::refund).filter(r -> r.status() == status).mapToLong(Refund::amount)
                .sum();
    }
}
