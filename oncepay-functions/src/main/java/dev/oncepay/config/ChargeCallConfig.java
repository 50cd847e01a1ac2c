package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * The limits of a charge ({@code oncepay.provider.charge-call.*}): 8 s for everything, 6 s per
 * attempt, at most 3 retries; its fleet breaker opens at 5 failed or slow (over 4 s) attempts
 * within 10 s and lets one probe through after 10 s.
 */
public interface ChargeCallConfig extends ProviderCallConfig {

    @Override
    @WithDefault("8S")
    Duration budget();

    @Override
    @WithDefault("6S")
    Duration attemptTimeout();

    @Override
    @WithDefault("3")
    int maxRetries();

    @Override
    @WithDefault("100MS")
    Duration backoffBase();

    @Override
    @WithDefault("5")
    int breakerFailures();

    @Override
    @WithDefault("10S")
    Duration breakerWindow();

    @Override
    @WithDefault("10S")
    Duration breakerDelay();

    @Override
    @WithDefault("4S")
    Duration slowCall();

    @Override
    @WithDefault("25")
    int maxInFlight();
}
