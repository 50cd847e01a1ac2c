package dev.oncepay.provider.policy.sim;

import java.time.Duration;

/**
 * One Lambda sandbox's fleet protection of a provider account's charges, as the simulation drives
 * it: the few decisions a charge asks for, whatever implements them. An adapter per implementation
 * lives next to it ({@code dev.oncepay.provider.policy.SimulatedFleetProtection}).
 */
public interface SandboxProtection {
    /** Why a call or an attempt was refused before anything was sent. */
    enum Refusal {
        BREAKER_OPEN, AT_CAPACITY, RETRY_BUDGET_SPENT
    }

    /** One admitted call, across its attempts; {@code probe()}: the current attempt decides the breaker. */
    interface Call {
        boolean probe();
    }

    /** Leave, or why not: exactly one of {@code call} and {@code refusal} is set. */
    record Admission(Call call, Refusal refusal) {
        public static Admission admitted(Call call) {
            return new Admission(call, null);
        }

        public static Admission refused(Refusal why) {
            return new Admission(null, why);
        }

        public boolean isAdmitted() {
            return call != null;
        }
    }

    /** Leave to start a charge and send its first attempt (a refused call holds nothing). */
    Admission admit();

    /** After a retryable failure: whether the fleet's retry budget allows another attempt. */
    boolean mayRetry(Call call);

    /** Leave for a retry's attempt, after its backoff. */
    Admission admitAttempt(Call call);

    /** What the current attempt came to: {@code failure} is {@code null} if the provider answered. */
    void attempted(Call call, String failure, Duration took);

    /** The call ended, however: give back whatever it holds. */
    void ended(Call call);
}
