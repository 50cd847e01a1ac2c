package dev.oncepay.provider;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.Metrics;
import dev.oncepay.payment.Payment;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
    private final Clock clock;

    public ProviderGateway(PspCalls calls, CircuitBreakerMaintenance breakers, EmbeddedMetrics metrics, Clock clock) {
        this.calls = calls;
        this.breakers = breakers;
        this.metrics = metrics;
        this.clock = clock;
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

    /** {@link #charge(Payment, Instant)} within the charge call's configured budget. */
    public ChargeResult charge(Payment payment) {
        return charge(payment, clock.instant().plus(calls.chargeBudget()));
    }

    /**
     * Charges the payment, retried only with the provider key derived from its id, and over by
     * {@code deadline} (or the configured budget, if that ends sooner): no wait outlives it, and
     * no attempt starts that could not end before it.
     */
    public ChargeResult charge(Payment payment, Instant deadline) {
        CallLog log = calls.chargeCall(Duration.between(clock.instant(), deadline));
        PspChargeRequest body = new PspChargeRequest(payment.amount(), payment.currency(), payment.id(),
                payment.reference());
        ChargeResult result;
        if (!log.attemptFitsAfter(Duration.ZERO)) {
            result = ChargeResult.notSent("no time left for an attempt before " + deadline);
        } else {
            try {
                result = calls.charge(payment.providerIdempotencyKey(), body, log);
            } catch (CircuitBreakerOpenException open) {
                result = log.anyMaybeExecuted()
                        ? ChargeResult.unknown("circuit breaker opened after a possibly executed attempt")
                        : ChargeResult.notSent("circuit breaker open");
            } catch (TimeoutException timeout) {
                result = ChargeResult.unknown("provider call timed out");
            } catch (ProviderFault fault) {
                result = fault.maybeExecuted() || log.anyMaybeExecuted() ? ChargeResult.unknown(fault.getMessage())
                        : ChargeResult.notSent(fault.getMessage());
            }
        }
        LOG.infof("charge paymentId=%s outcome=%s attempts=%d%s", payment.id(), result.outcome(), log.attempts(),
                result.detail() == null ? "" : " detail=" + result.detail());
        return result;
    }

    /** {@link #chargesFor(String, Instant)} within the lookup call's configured budget. */
    public List<FoundCharge> chargesFor(String paymentId) {
        return chargesFor(paymentId, clock.instant().plus(calls.lookupBudget()));
    }

    /**
     * The charges the PSP holds for our payment id (design §4 lookup), asked by {@code deadline}
     * (or the configured budget, if that ends sooner). Anything but a well-formed list is a fault,
     * never an empty list: faults propagate, also when there is no time for an attempt.
     */
    public List<FoundCharge> chargesFor(String paymentId, Instant deadline) {
        CallLog log = calls.lookupCall(Duration.between(clock.instant(), deadline));
        if (!log.attemptFitsAfter(Duration.ZERO)) {
            throw new OutOfTimeProviderFault("no time left for a lookup before " + deadline, false, null);
        }
        return calls.chargesByReference(paymentId, log).stream().map(PspCharge::found).toList();
    }

    /** Whether a charge would be refused without a call right now. */
    public boolean chargeBreakerOpen() {
        return breakers.currentState(PspCalls.CHARGE_BREAKER) == CircuitBreakerState.OPEN;
    }
}
