package dev.oncepay.provider.spi;

/**
 * The provider gave no answer and says asking again will not give one (Stripe's
 * {@code Stripe-Should-Retry: false} on a {@code 5xx}): not retried. UNKNOWN if the request may
 * have been executed, NOT_SENT if it provably was not.
 */
public class UnansweredProviderFault extends ProviderFault {
    public UnansweredProviderFault(String detail, boolean maybeExecuted) {
        super(detail, maybeExecuted, null);
    }
}
