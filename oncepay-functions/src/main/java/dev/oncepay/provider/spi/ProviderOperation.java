package dev.oncepay.provider.spi;

/** What a provider call does: each provider account has one fleet breaker per operation. */
public enum ProviderOperation {
    CHARGE,
    LOOKUP,
    /** Gives captured money back: guarded as a charge is (its limits), with breakers and budgets of its own. */
    REFUND;

    /** As in breaker item keys and log lines. */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
