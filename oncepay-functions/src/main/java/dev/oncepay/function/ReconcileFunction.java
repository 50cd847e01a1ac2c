package dev.oncepay.function;

import dev.oncepay.api.RequestLog;
import dev.oncepay.reconcile.ReconcileUseCase;
import dev.oncepay.reconcile.ScheduledEvent;
import dev.oncepay.reconcile.SweepSummary;
import io.quarkus.funqy.Funq;
import jakarta.inject.Inject;

/**
 * The {@code reconcile} Lambda: an EventBridge schedule (e.g. every minute) triggers one sweep.
 * Thin on purpose: the event only names the trigger; {@link ReconcileUseCase} knows no Lambda types.
 *
 * <p>Funqy does not pass the Lambda context, so the sweep bounds itself with
 * {@code oncepay.reconcile.time-budget} instead of the remaining invocation time.
 */
public class ReconcileFunction {
    @Inject
    ReconcileUseCase sweep;
    @Inject
    RequestLog requests;

    @Funq("reconcile")
    public SweepSummary reconcile(ScheduledEvent event) {
        return requests.run("reconcile", () -> sweep.sweep(event == null ? "manual" : event.trigger()));
    }
}
