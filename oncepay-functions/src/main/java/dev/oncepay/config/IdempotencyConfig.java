package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** How long idempotency keys are kept and owned ({@code oncepay.idempotency.*}). */
public interface IdempotencyConfig {

    /** How long a key is remembered and replayed (Stripe: at least 24 h). */
    @WithDefault("24H")
    Duration retention();

    /**
     * How long a claimed key is owned by the request that claimed it. Must exceed the
     * charge Lambda's timeout, so a live request is never taken over.
     */
    @WithDefault("35S")
    Duration lease();
}
