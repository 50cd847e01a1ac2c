package dev.oncepay.provider.psp;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.oncepay.provider.spi.FoundRefund;
import dev.oncepay.provider.spi.ProviderOutcome;

/**
 * A refund as the PSP reports it (wire record): {@code POST /v1/refunds}, its lookups and its
 * events. {@code reference} is our refund id; {@code status} as sent, read through {@link #outcome()}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PspRefund(String id, String charge, String status, String reference, Long amount, String currency,
        String failureCode) {

    /**
     * The one mapping of the PSP's refund statuses: {@code succeeded} and {@code failed} are final;
     * {@code pending}, and any word this adapter does not know, are not.
     */
    public ProviderOutcome outcome() {
        if ("succeeded".equals(status)) {
            return ProviderOutcome.SUCCEEDED;
        }
        if ("failed".equals(status)) {
            return ProviderOutcome.FAILED;
        }
        return ProviderOutcome.UNKNOWN;
    }

    /** What the sweep sees of it. */
    FoundRefund found() {
        return new FoundRefund(id, outcome(), status, reference, amount, currency, failureCode);
    }
}
