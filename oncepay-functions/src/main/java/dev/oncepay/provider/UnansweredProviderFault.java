package dev.oncepay.provider;

/**
 * The provider gave no answer and says asking again will not give one (Stripe's
 * {@code Stripe-Should-Retry: false} on a {@code 5xx}): not retried. UNKNOWN if the request may
 * have been executed, NOT_SENT if it provably was not.
 */
public class UnansweredProviderFault extends ProviderFault {
    UnansweredProviderFault(String detail, boolean maybeExecuted) {
        super(detail, maybeExecuted, null);
    }
}
