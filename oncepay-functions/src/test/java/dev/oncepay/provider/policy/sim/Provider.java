package dev.oncepay.provider.policy.sim;

import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * The payment provider as the fleet sees it: over time a series of {@link Phase}s, each answering
 * every attempt one way. Healthy: answers after a lognormal latency (median 200 ms), a share of
 * them a quick 503. Refusing: connection refused within milliseconds. Unanswering: nothing comes
 * back, and the attempt ends at the client's read timeout. Slow: every charge answered correctly,
 * after 4.5 s (under the 5 s read timeout, over the breaker's 4 s slow-call limit).
 */
final class Provider {
    enum Mode {
        HEALTHY, REFUSING, UNANSWERING, SLOW;

        boolean dead() {
            return this == REFUSING || this == UNANSWERING;
        }
    }

    /** How the provider answers from {@code from} on (until the next phase), with {@code errorRate} of 503s if healthy. */
    record Phase(Duration from, Mode mode, double errorRate) {
        static Phase healthy(Duration from, double errorRate) {
            return new Phase(from, Mode.HEALTHY, errorRate);
        }

        static Phase of(Duration from, Mode mode) {
            return new Phase(from, mode, 0);
        }
    }

    /** One attempt's fate: {@code failure} null if answered (correctly), whether a retry may follow, and when. */
    record Reply(String failure, boolean retryable, Duration took) {
    }

    static final Duration MEDIAN_LATENCY = Duration.ofMillis(200);
    static final double LATENCY_SIGMA = 0.35;
    static final Duration SLOW_ANSWER = Duration.ofMillis(4500);
    static final Duration REFUSED_AFTER = Duration.ofMillis(2);

    private final List<Phase> phases;
    private final Duration readTimeout;

    Provider(List<Phase> phases, Duration readTimeout) {
        this.phases = phases;
        this.readTimeout = readTimeout;
    }

    Phase phaseAt(Duration elapsed) {
        Phase current = phases.get(0);
        for (Phase phase : phases) {
            if (phase.from().compareTo(elapsed) <= 0) {
                current = phase;
            }
        }
        return current;
    }

    /** How long a call sent {@code elapsed} into the scenario takes, without drawing: the median where the phase draws. */
    Duration typicalCall(Duration elapsed) {
        return switch (phaseAt(elapsed).mode()) {
            case HEALTHY -> MEDIAN_LATENCY;
            case REFUSING -> REFUSED_AFTER;
            case UNANSWERING -> readTimeout;
            case SLOW -> SLOW_ANSWER;
        };
    }

    /** The fate of an attempt sent {@code elapsed} into the scenario. */
    Reply answer(Duration elapsed, Random random) {
        Phase phase = phaseAt(elapsed);
        return switch (phase.mode()) {
            case HEALTHY -> random.nextDouble() < phase.errorRate()
                    ? new Reply("503 from the provider", true, lognormal(random, Duration.ofMillis(30)))
                    : new Reply(null, false, lognormal(random, MEDIAN_LATENCY));
            case REFUSING -> new Reply("connection refused", true, REFUSED_AFTER);
            case UNANSWERING -> new Reply("read timed out", false, readTimeout);
            case SLOW -> new Reply(null, false, SLOW_ANSWER);
        };
    }

    private static Duration lognormal(Random random, Duration median) {
        return Duration.ofNanos((long) (median.toNanos() * Math.exp(LATENCY_SIGMA * random.nextGaussian())));
    }
}
