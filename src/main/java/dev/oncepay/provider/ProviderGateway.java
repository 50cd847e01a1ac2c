package dev.oncepay.provider;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.Metrics;
import dev.oncepay.payment.Payment;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.jboss.logging.Logger;

/** What the use cases see of the PSP: a charge ends in exactly one {@link ProviderOutcome}. */
@ApplicationScoped
public class ProviderGateway {
    private static final Logger LOG = Logger.getLogger(ProviderGateway.class);

    private final PspCalls calls;
    private final CircuitBreakerMaintenance breakers;
    private final EmbeddedMetrics metrics;

    public ProviderGateway(PspCalls calls, CircuitBreakerMaintenance breakers, EmbeddedMetrics metrics) {
        this.calls = calls;
        this.breakers = breakers;
        this.metrics = metrics;
    }

    /** Breaker transitions are the signal of a provider outage: log every one, count the openings. */
    void watchBreakers(@Observes StartupEvent started) {
        for (String breaker : List.of(PspCalls.CHARGE_BREAKER, PspCalls.LOOKUP_BREAKER)) {
            breakers.onStateChange(breaker, state -> {
                LOG.warnf("circuit breaker %s is now %s", breaker, state);
                if (state == CircuitBreakerState.OPEN) {
                    metrics.count(Metrics.BREAKER_OPEN);
                }
            });
        }
    }

    /** Charges the payment, retried only with the provider key derived from its id. */
    public ChargeResult charge(Payment payment) {
        CallLog log = new CallLog();
        PspChargeRequest body = new PspChargeRequest(payment.amount(), payment.currency(), payment.id(),
                payment.reference());
        ChargeResult result;
        try {
            result = calls.charge(payment.providerIdempotencyKey(), body, log);
        } catch (CircuitBreakerOpenException open) {
            result = log.anyMaybeExecuted() ? ChargeResult.unknown("circuit breaker opened after a possibly executed attempt")
                    : ChargeResult.notSent("circuit breaker open");
        } catch (TimeoutException timeout) {
            result = ChargeResult.unknown("provider call timed out");
        } catch (ProviderFault fault) {
            result = fault.maybeExecuted() || log.anyMaybeExecuted() ? ChargeResult.unknown(fault.getMessage())
                    : ChargeResult.notSent(fault.getMessage());
        }
        LOG.infof("charge paymentId=%s outcome=%s attempts=%d%s", payment.id(), result.outcome(), log.attempts(),
                result.detail() == null ? "" : " detail=" + result.detail());
        return result;
    }

    /** The charges the PSP holds for our payment id (design §4 lookup); faults propagate. */
    public List<PspCharge> chargesFor(String paymentId) {
        return calls.chargesByReference(paymentId);
    }

    /** Whether a charge would be refused without a call right now. */
    public boolean chargeBreakerOpen() {
        return breakers.currentState(PspCalls.CHARGE_BREAKER) == CircuitBreakerState.OPEN;
    }
}
