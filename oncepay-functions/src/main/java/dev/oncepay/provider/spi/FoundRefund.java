package dev.oncepay.provider.spi;

/**
 * A refund the provider reports for one of ours, in provider-neutral terms (the adapter's one
 * status mapping): no wire type leaves the provider package.
 *
 * @param outcome {@code SUCCEEDED}, {@code FAILED}, or {@code UNKNOWN} (not final yet, or a status
 *        the adapter does not know)
 * @param providerStatus the provider's own word, for reasons and logs only
 * @param reference our refund id as the provider echoes it; {@code null} if it did not say
 * @param amount {@code null} if the provider did not say
 */
public record FoundRefund(String id, ProviderOutcome outcome, String providerStatus, String reference, Long amount,
        String currency, String failureCode) {

    /** The provider's failure code, else its status word. */
    public String failureCodeOrStatus() {
        return failureCode != null ? failureCode : providerStatus;
    }
}
