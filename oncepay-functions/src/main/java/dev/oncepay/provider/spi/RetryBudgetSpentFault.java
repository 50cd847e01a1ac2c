package dev.oncepay.provider.spi;

/**
 * A fault that would be retried, but the provider account's fleet-wide retry budget is spent: the
 * retries end here, so retries cannot multiply the load on a struggling provider. UNKNOWN if any
 * attempt may have executed, NOT_SENT otherwise, as for any other fault.
 */
public class RetryBudgetSpentFault extends ProviderFault {
    public RetryBudgetSpentFault(RetryableProviderFault wanted) {
        // Not caused by the retryable fault: SmallRye reads the cause chain, and would retry it.
        super(wanted.getMessage() + "; not retried: the retry budget is spent", wanted.maybeExecuted(),
                wanted.getCause());
    }
}
