package dev.oncepay.function;

import dev.oncepay.api.RequestLog;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.delivery.DeliveryThreads;
import dev.oncepay.delivery.EventDeliveryWorker;
import dev.oncepay.queue.EventDeliveryJob;
import io.quarkus.funqy.Funq;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.util.function.Supplier;

/**
 * The {@code event-delivery} Lambda: SQS events from the event queue. Funqy's SQS event handling
 * calls it once per message with the message's body and waits for every message's {@link Uni}
 * together; each delivery starts at once on its own thread, so a batch's deliveries run in
 * parallel. A message whose Uni fails (or whose body is no job) is reported as a batch item
 * failure, so it never makes its neighbours run again.
 */
public class EventDeliveryFunction {
    @Inject
    EventDeliveryWorker worker;
    @Inject
    DeliveryThreads threads;
    @Inject
    RequestLog requests;

    @Funq(DeploymentSettings.FUNCTION_EVENT_DELIVERY)
    public Uni<Void> eventDelivery(EventDeliveryJob job) {
        return Uni.createFrom().completionStage(threads.start(new Run(worker, requests, job))).replaceWithVoid();
    }

    /** One message's delivery, logged as one line, on a delivery thread. */
    private record Run(EventDeliveryWorker worker, RequestLog requests, EventDeliveryJob job)
            implements Supplier<EventDeliveryWorker.Outcome> {
        @Override
        public EventDeliveryWorker.Outcome get() {
            return requests.run(DeploymentSettings.FUNCTION_EVENT_DELIVERY, this::deliver);
        }

        private EventDeliveryWorker.Outcome deliver() {
            return worker.deliver(job);
        }
    }
}
