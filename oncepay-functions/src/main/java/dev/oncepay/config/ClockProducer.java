package dev.oncepay.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;

/** One clock for all expiry and lease decisions, so tests can move time instead of sleeping. */
@ApplicationScoped
public class ClockProducer {
    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
