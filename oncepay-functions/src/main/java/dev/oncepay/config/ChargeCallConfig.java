package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * The limits of a charge ({@code oncepay.provider.charge-call.*}): 8 s for everything, 6 s per
 * attempt, at most 3 retries; its fleet breaker opens when half of the newest calls (at least
 * 20 of them if there were, at least 5, none older than 10 s) failed, or all were slower than
 * 5 s, and lets one probe through after 10 s.
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
    @WithDefault("20")
    int breakerWindowCalls();

    @Override
    @WithDefault("5")
    int breakerMinCalls();

    @Override
    @WithDefault("0.5")
    double breakerFailureRatio();

    @Override
    @WithDefault("1.0")
    double breakerSlowCallRatio();

    @Override
    @WithDefault("10S")
    Duration breakerWindow();

    @Override
    @WithDefault("10S")
    Duration breakerDelay();

    @Override
    @WithDefault("5S")
    Duration slowCall();

    @Override
    @WithDefault("25")
    int maxInFlight();
}
