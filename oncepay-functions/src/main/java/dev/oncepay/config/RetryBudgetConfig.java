package dev.oncepay.config;

import io.smallrye.config.WithDefault;

/** Retries fleet-wide per provider account and operation, as a share of its calls ({@code RetryBudget}). */
public interface RetryBudgetConfig {

    /** Retries earned per call: 0.1 lets one call in ten be retried once. */
    @WithDefault("0.1")
    double share();

    /** Retries a breaker's bucket starts with and holds at most, so a quiet account may still retry. */
    @WithDefault("10")
    int burst();
}
