package dev.oncepay.function;

import dev.oncepay.api.RequestLog;
import dev.oncepay.charge.ChargeWorker;
import dev.oncepay.queue.ChargeJob;
import io.quarkus.funqy.Funq;
import jakarta.inject.Inject;

/**
 * The {@code charge-worker} Lambda: SQS events from the charge queues. Funqy's SQS event handling
 * calls it once per message with the message's body, and reports each message that throws as a
 * batch item failure, so a failed message never makes its neighbours run again.
 */
public class ChargeWorkerFunction {
    @Inject
    ChargeWorker worker;
    @Inject
    RequestLog requests;

    @Funq("charge-worker")
    public void chargeWorker(ChargeJob job) {
        requests.run("charge-worker", () -> worker.work(job));
    }
}
