package dev.oncepay.infra;

import dev.oncepay.contract.DeploymentSettings;
import java.util.Set;
import software.amazon.awscdk.services.lambda.IFunction;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * The merchant event queue: one message per (event, endpoint), relayed by whichever function
 * moved the payment or refund (or by reconcile's outbox sweep), taken up by event-delivery. A
 * failed delivery is put back as a new delayed message, so a message fails only on the worker's
 * own trouble; after {@value DeploymentSettings#EVENT_QUEUE_MAX_RECEIVES} receives it moves to the
 * dead-letter queue.
 */
final class EventQueue {
    /** Every function that changes a payment or refund relays its events; event-delivery puts failed ones back. */
    static final Set<String> SENDERS = Set.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_WEBHOOK,
            DeploymentSettings.FUNCTION_RECONCILE, DeploymentSettings.FUNCTION_CHARGE_WORKER,
            DeploymentSettings.FUNCTION_EVENT_DELIVERY);
    /** Logical id prefixes of the queues; the SAM templates use the same ids. */
    static final String QUEUE_ID = "EventQueue";
    static final String DEAD_LETTERS_ID = "EventDeadLetters";

    final Queue queue;
    final Queue deadLetters;
    private final int maxConcurrency;

    /** @param maxConcurrency event-delivery's invocations from this queue, fleet-wide */
    EventQueue(Construct scope, int maxConcurrency) {
        this.maxConcurrency = maxConcurrency;
        deadLetters = OncepayStack.deadLetterQueue(scope, DEAD_LETTERS_ID)
                .queueName(DeploymentSettings.EVENT_DEAD_LETTER_QUEUE_NAME)
                .build();
        queue = OncepayStack.feedingQueue(scope, QUEUE_ID, DeploymentSettings.EVENT_QUEUE_NAME,
                DeploymentSettings.EVENT_QUEUE_VISIBILITY_TIMEOUT_SECONDS, DeploymentSettings.EVENT_QUEUE_RETENTION_SECONDS,
                deadLetters, DeploymentSettings.EVENT_QUEUE_MAX_RECEIVES);
    }

    /**
     * Event-delivery (its live alias) takes up what is waiting, up to a batch at once with no
     * batching window (an event goes out as soon as it is relayed), reports the messages it failed,
     * and may send (its delayed retries).
     */
    void feed(IFunction delivery) {
        delivery.addEventSource(OncepayStack.mapping(queue, DeploymentSettings.EVENT_QUEUE_BATCH_SIZE, maxConcurrency));
    }
}
