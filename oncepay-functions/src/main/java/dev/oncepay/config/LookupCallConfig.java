package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * The limits of a lookup ({@code oncepay.provider.lookup-call.*}): an attempt (5 s, the read
 * timeout) fits its budget (6 s), so a retry only follows a fast failure; at most 2 retries; the
 * breaker as for charges.
 */
public interface LookupCallConfig extends ProviderCallConfig {

    @Override
    @WithDefault("6S")
    Duration budget();

    @Override
    @WithDefault("5S")
    Duration attemptTimeout();

    @Override
    @WithDefault("2")
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
    @WithDefault("4S")
    Duration slowCall();

    @Override
    @WithDefault("25")
    int maxInFlight();
}
