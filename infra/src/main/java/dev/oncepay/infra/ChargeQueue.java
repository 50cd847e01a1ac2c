package dev.oncepay.infra;

import dev.oncepay.contract.DeploymentSettings;
import java.util.Set;
import software.amazon.awscdk.services.lambda.IFunction;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * One provider account's charge queue: the charges asked for with {@code Prefer: respond-async} for
 * that account's tenants, which the charge worker takes up, one queue per account so that a slow
 * account backs up only its own. A message the worker fails {@value DeploymentSettings#CHARGE_QUEUE_MAX_RECEIVES}
 * times moves to the account's dead-letter queue; one older than the horizon is dropped, and the
 * sweep settles its payment from the provider's word.
 */
final class ChargeQueue {
    /** The functions that send to the charge queues: charge queues a charge, the worker puts one back with a delay. */
    static final Set<String> SENDERS = Set.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_CHARGE_WORKER);

    /** The account's construct: its queues', secrets' and alarms' scope. */
    final Construct scope;
    final String account;
    final Queue queue;
    final Queue deadLetters;
    private final int maxConcurrency;

    /**
     * @param scope          the account's construct, which holds its secrets too
     * @param maxConcurrency the worker's charges in flight from this queue, fleet-wide
     */
    ChargeQueue(Construct scope, String account, int maxConcurrency) {
        this.scope = scope;
        this.account = account;
        this.maxConcurrency = maxConcurrency;
        deadLetters = OncepayStack.deadLetterQueue(scope, "ChargeDeadLetters")
                .queueName(DeploymentSettings.chargeDeadLetterQueueName(account))
                .build();
        queue = OncepayStack.feedingQueue(scope, "ChargeQueue", DeploymentSettings.chargeQueueName(account),
                DeploymentSettings.CHARGE_QUEUE_VISIBILITY_TIMEOUT_SECONDS, DeploymentSettings.CHARGE_QUEUE_HORIZON_SECONDS,
                deadLetters, DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES);
    }

    /**
     * The worker (its live alias, so a SnapStart snapshot serves it) takes up the queue's messages
     * as they come, one per invocation, at most {@code maxConcurrency} at once, and reports the ones
     * it failed; it may also send, to put a charge back with a delay.
     */
    void feed(IFunction worker) {
        worker.addEventSource(OncepayStack.mapping(queue, DeploymentSettings.CHARGE_QUEUE_BATCH_SIZE, maxConcurrency));
        queue.grantSendMessages(worker);
    }
}
