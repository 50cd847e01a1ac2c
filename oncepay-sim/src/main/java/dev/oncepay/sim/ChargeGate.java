package dev.oncepay.sim;

import java.time.Duration;

/**
 * Lets a test park charge requests just before execution ({@link #hold()}), see that they arrived
 * ({@link #awaitParked}) and let them go together ({@link #release()}): a deterministic way to put
 * requests "in the middle of the provider call".
 */
final class ChargeGate {

    private boolean held;
    private boolean closed;
    private int parked;

    synchronized void hold() {
        held = true;
    }

    synchronized void release() {
        held = false;
        notifyAll();
    }

    /**
     * Waits while the gate is held.
     *
     * @return false if the simulator closed meanwhile, so the request must not execute
     */
    synchronized boolean passThrough() throws InterruptedException {
        if (!held) {
            return !closed;
        }
        parked++;
        notifyAll();
        try {
            while (held && !closed) {
                wait();
            }
        } finally {
            parked--;
        }
        return !closed;
    }

    synchronized boolean awaitParked(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (parked < count) {
            long leftMs = Duration.ofNanos(deadline - System.nanoTime()).toMillis();
            if (leftMs <= 0) {
                return false;
            }
            wait(leftMs);
        }
        return true;
    }

    synchronized int parked() {
        return parked;
    }

    synchronized void close() {
        closed = true;
        held = false;
        notifyAll();
    }
}
