package dev.oncepay.testkit;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A lost answer held back on purpose ({@link StoreFaultProxy#holdNextLostAnswer}): the write has
 * committed, the caller still waits. A test races another request into exactly that window, then
 * lets the 500 go, and the caller's SDK retries a write that already happened.
 */
public final class HeldAnswer {
    private final CountDownLatch committed = new CountDownLatch(1);
    private final CountDownLatch letGo = new CountDownLatch(1);

    /** @return true once the held request's write reached the store, false on timeout */
    public boolean awaitCommitted(Duration timeout) throws InterruptedException {
        return committed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Sends the held 500. */
    public void letGo() {
        letGo.countDown();
    }

    void markCommitted() {
        committed.countDown();
    }

    /** Bounded: a test that forgets to let go must not hold a proxy thread for ever. */
    void awaitLetGo() throws InterruptedException {
        letGo.await(60, TimeUnit.SECONDS);
    }
}
