package dev.oncepay.sim;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Lets long pauses inside request handlers (latency, commit-then-timeout) end at once when the
 * simulator closes, instead of keeping threads and sockets busy for up to 30 s.
 */
final class Shutdown {

    private final CountDownLatch signal = new CountDownLatch(1);

    /** @return true if the whole pause elapsed, false if the simulator closed meanwhile */
    boolean pause(long millis) throws InterruptedException {
        if (millis <= 0) {
            return !triggered();
        }
        return !signal.await(millis, TimeUnit.MILLISECONDS);
    }

    boolean triggered() {
        return signal.getCount() == 0;
    }

    void trigger() {
        signal.countDown();
    }
}
