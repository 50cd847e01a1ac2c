package dev.oncepay.provider.spi;

import dev.oncepay.payment.CustomerAction;

/**
 * A charge the provider reports for one of our payments, in provider-neutral terms: what it
 * means for the payment ({@code outcome}, from the adapter's one status mapping) and the facts
 * reconcile checks against the payment. No wire type leaves the provider package.
 *
 * @param outcome {@code SUCCEEDED}, {@code FAILED} or {@code UNKNOWN} (not final yet, or a status
 *        the adapter does not know)
 * @param providerStatus the provider's own word, for reasons and logs only
 * @param reference our payment id as the provider echoes it; {@code null} if it did not say
 * @param amount {@code null} if the provider did not say
 * @param currency {@code null} if the provider did not say
 * @param customerAction for a charge that waits for the customer (3-D Secure): what the
 *        merchant's front end needs to finish it; otherwise {@code null}
 * @param cancelRequired a FAILED charge that stays open to the customer until it is canceled
 */
public record FoundCharge(String id, ProviderOutcome outcome, String providerStatus, String reference, Long amount,
        String currency, String declineCode, CustomerAction customerAction, boolean cancelRequired) {

    public FoundCharge(String id, ProviderOutcome outcome, String providerStatus, String reference, Long amount,
            String currency, String declineCode, CustomerAction customerAction) {
        this(id, outcome, providerStatus, reference, amount, currency, declineCode, customerAction, false);
    }

    /** The decline code the provider gave, else its status word. */
    public String declineCodeOrStatus() {
        return declineCode != null ? declineCode : providerStatus;
    }
}
