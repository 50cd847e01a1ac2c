package dev.oncepay.payment;

import java.util.Arrays;
import java.util.Optional;

/** What a merchant hears about a payment or a refund, by the names on the wire. */
public enum MerchantEventType {
    PAYMENT_SUCCEEDED("payment.succeeded"),
    PAYMENT_FAILED("payment.failed"),
    PAYMENT_REQUIRES_ACTION("payment.requires_action"),
    PAYMENT_NEEDS_REVIEW("payment.needs_review"),
    PAYMENT_RESOLVED("payment.resolved"),
    REFUND_SUCCEEDED("refund.succeeded"),
    REFUND_FAILED("refund.failed"),
    REFUND_NEEDS_REVIEW("refund.needs_review");

    private final String wireName;

    MerchantEventType(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<MerchantEventType> ofWireName(String name) {
        return Arrays.stream(values()).filter(t -> t.wireName.equals(name)).findFirst();
    }
}
