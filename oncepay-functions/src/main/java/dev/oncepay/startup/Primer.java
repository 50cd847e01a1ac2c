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

    /** Runs the path; what it did, one short entry per step (a route and its status, never a value). */
    List<String> prime(SyntheticEvents events);
}
