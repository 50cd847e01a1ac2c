package dev.oncepay.provider.spi;

/** Why the fleet's protection of a provider account refused a call before anything was sent. */
public enum ProviderRefusal {
    /** The account's fleet breaker is open, or another sandbox holds its half-open probe. */
    BREAKER_OPEN("circuit breaker open"),
    /** The account already has its fleet-wide cap of calls in flight (the bulkhead). */
    AT_CAPACITY("provider account at its cap of calls in flight");

    private final String detail;

    ProviderRefusal(String detail) {
        this.detail = detail;
    }

    public String detail() {
        return detail;
    }
}
