package dev.oncepay.queue;

/** A queue (a charge queue or the event queue) did not take a message, or its answer was lost (the message may be on the queue). */
public class QueueUnavailableException extends RuntimeException {
    public QueueUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
