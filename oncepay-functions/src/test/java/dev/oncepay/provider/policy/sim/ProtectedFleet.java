package dev.oncepay.provider.policy.sim;

import java.time.Clock;
import java.time.Duration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** A fleet-protection implementation under simulation: one instance per simulated fleet. */
public interface ProtectedFleet {
    /** Builds a fleet over the shared store and clock; {@code timers} runs delayed work on virtual time. */
    interface Factory {
        ProtectedFleet create(DynamoDbClient store, String table, Clock clock, Timers timers);
    }

    /** Delayed work on the simulation's virtual time, on its one thread. */
    interface Timers {
        /** Runs {@code action} after {@code delay}; the returned handle cancels it if it has not run. */
        Runnable schedule(Duration delay, Runnable action);
    }

    /** A new sandbox's protection: its own caches and counters, the shared store. */
    SandboxProtection newSandbox();

    /** Times the account's breaker opened fleet-wide so far (closed→open and half-open→open): open periods. */
    long openings();

    /** Times a sandbox could not read or write the protection's items (it then failed open). */
    long storeFailures();

    /** The calls the breaker needs to see before it may open (SmallRye's request volume: the window's calls). */
    int thresholdVolume();

    /** The bulkhead's cap of calls in flight fleet-wide. */
    int inFlightCap();

    /** The provider call limits the simulated calls follow: attempts, backoff, deadline. */
    CallLimits limits();

    /**
     * @param budget the whole call's deadline; @param attemptTimeout one attempt's
     * @param readTimeout when an unanswered attempt ends; @param maxRetries attempts after the first
     * @param backoffBase the first full-jitter ceiling; @param backoffCap the largest
     */
    record CallLimits(Duration budget, Duration attemptTimeout, Duration readTimeout, int maxRetries,
            Duration backoffBase, Duration backoffCap) {
    }
}
