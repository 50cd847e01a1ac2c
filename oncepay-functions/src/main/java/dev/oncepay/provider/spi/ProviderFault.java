package dev.oncepay.provider.spi;

/**
 * A provider call that produced no usable answer. Counts against the circuit breaker. Whether
 * the request may have been executed decides between UNKNOWN and NOT_SENT.
 */
public abstract class ProviderFault extends RuntimeException {
    private final boolean maybeExecuted;

    protected ProviderFault(String detail, boolean maybeExecuted, Throwable cause) {
        super(detail, cause, false, false);
        this.maybeExecuted = maybeExecuted;
    }

    public boolean maybeExecuted() {
        return maybeExecuted;
    }
}
