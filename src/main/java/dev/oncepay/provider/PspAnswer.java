package dev.oncepay.provider;

import java.util.List;

/** A definite answer from the PSP (2xx, or a 4xx that means "no"), as opposed to a fault. */
record PspAnswer(int httpStatus, PspCharge charge, String errorCode, List<PspCharge> charges) {

    ChargeResult toChargeResult() {
        if (httpStatus / 100 == 2 && charge != null) {
            return "succeeded".equals(charge.status())
                    ? ChargeResult.succeeded(charge.id())
                    : ChargeResult.failed(charge.id(), charge.declineCode() != null ? charge.declineCode() : charge.status());
        }
        if (httpStatus == 402) {
            return ChargeResult.failed(null, errorCode != null ? errorCode : "card_declined");
        }
        // 400/404/422: the provider refused the request itself; it can never succeed as sent.
        return ChargeResult.failed(null, "provider_rejected_" + httpStatus);
    }
}
