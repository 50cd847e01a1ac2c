package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The local run's {@code [sqs]} lines: each names the queue, the worker sandbox, the batch and its time. */
class QueueDeliveryTest {

    @Test
    void aDeliveryAndAFailedOneAreRead() {
        assertEquals(new QueueDelivery("oncepay-charges-default", "charge-worker#2", 1, 0, 123),
                QueueDelivery.parse("12:00:01.250 [sqs] oncepay-charges-default -> charge-worker#2 (1 msg, 0 failed, 123 ms)"));
        assertEquals(new QueueDelivery("oncepay-charges-stripe", "charge-worker#1", 3, 3, 14012),
                QueueDelivery.parse("12:00:02.000 [sqs] WARNING oncepay-charges-stripe -> charge-worker#1 (3 msg, 3 failed,"
                        + " 14012 ms): Sandbox.Timedout: ...; failed messages return after the visibility timeout"));
    }

    @Test
    void otherLinesAreNoDelivery() {
        assertNull(QueueDelivery.parse("12:00:01.250 [gateway] POST /payments -> charge#1 202 (35 ms)"));
        assertNull(QueueDelivery.parse("12:00:01.250 [sqs] WARNING oncepay-charges-default: ReceiveMessage failed (x);"
                + " polling again in 1 s"));
    }
}
