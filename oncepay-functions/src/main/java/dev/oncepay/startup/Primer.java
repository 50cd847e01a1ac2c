package dev.oncepay.startup;

import java.util.List;

/**
 * One function's priming: its real request path run with synthetic events, through the handler
 * code its Funqy function runs, so the classes, Jackson's (de)serializers and the clients a first
 * request needs are loaded and built before it comes. It writes nothing to the table and calls no
 * provider; what it reads from the store it reads as any request would.
 */
interface Primer {
    /** The function ({@code quarkus.funqy.export}) this primes. */
    String function();

    /**
     * Whether clients wait on the function's answers (an API's requests; not a provider's
     * deliveries, which it retries, nor a schedule's sweeps): its path is then run
     * {@code oncepay.priming.rounds} times, so that it is compiled, not only loaded, when the
     * first requests come.
     */
    boolean clientsWait();

    /** Runs the path once. */
    Round prime(SyntheticEvents events);

    /**
     * What one run of the path did, one short entry per step (a route and its status, never a
     * value); {@code complete} false if it ended early (the store did not answer), which ends the
     * priming too.
     */
    record Round(List<String> steps, boolean complete) {
    }
}
