package dev.oncepay.sim;

import java.time.Clock;
import java.time.Duration;

/**
 * How to start a {@link PspSimulator}.
 *
 * @param port 0 for a free port
 * @param seed seeds the fault dice, so a run with the same requests meets the same faults
 * @param clock the provider's time (idempotency expiry, charge timestamps)
 * @param idempotencyRetention how long a key replays its first answer (24 h, as in design §4)
 */
public record SimulatorOptions(int port, long seed, Clock clock, Duration idempotencyRetention) {

    public static final long DEFAULT_SEED = 42;

    public static SimulatorOptions onPort(int port) {
        return new SimulatorOptions(port, DEFAULT_SEED, Clock.systemUTC(), Duration.ofHours(24));
    }

    public SimulatorOptions withSeed(long value) {
        return new SimulatorOptions(port, value, clock, idempotencyRetention);
    }

    public SimulatorOptions withClock(Clock value) {
        return new SimulatorOptions(port, seed, value, idempotencyRetention);
    }

    public SimulatorOptions withIdempotencyRetention(Duration value) {
        return new SimulatorOptions(port, seed, clock, value);
    }
}
