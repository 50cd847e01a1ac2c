package dev.oncepay.startup;

import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.provider.psp.PspCharge;
import dev.oncepay.provider.psp.PspChargeRequest;
import dev.oncepay.provider.psp.PspRefund;
import dev.oncepay.reconcile.ScheduledEvent;
import dev.oncepay.reconcile.SweepSummary;
import dev.oncepay.queue.ChargeJob;
import dev.oncepay.queue.EventDeliveryJob;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Every class that Jackson binds by reflection, registered in one place for the native image
 * (a JVM build does not need this; a native one fails at run time without it, and only there).
 * The rule, which {@code NativeReflectionTest} enforces: a class with Jackson annotations (such as
 * a provider request body), a {@code @Funq} parameter or result, or a type the code hands to Jackson
 * (read into from a class literal, or written as a value) is listed here, nested records included
 * (targets do not register nested classes).
 *
 * <p>Responses written from ordered maps ({@code PaymentView}, problem+json) need nothing.
 */
@RegisterForReflection(targets = {
        // API Gateway HTTP API events in, responses out (the charge and webhook functions).
        HttpApiEvent.class,
        HttpApiEvent.RequestContext.class,
        HttpApiEvent.Http.class,
        HttpApiEvent.Authorizer.class,
        HttpApiEvent.Jwt.class,
        HttpApiEvent.Iam.class,
        HttpApiResponse.class,
        // EventBridge events in, sweep summaries out (the reconcile function).
        ScheduledEvent.class,
        SweepSummary.class,
        SweepSummary.Settled.class,
        SweepSummary.Refunds.class,
        // Charge queue messages in (the charge worker) and out (charge).
        ChargeJob.class,
        // Event queue messages in (event delivery) and out (the relay, event delivery's put-backs).
        EventDeliveryJob.class,
        // The generic PSP's JSON.
        PspCharge.class,
        PspChargeRequest.class,
        PspRefund.class,
})
public final class NativeReflection {
    private NativeReflection() {
    }
}
