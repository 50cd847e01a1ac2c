package dev.oncepay.provider;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.config.ChargeRetryAfterConfig;
import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Metrics;
import dev.oncepay.provider.policy.CallLog;
import dev.oncepay.provider.policy.ProviderCalls;
import dev.oncepay.provider.spi.CancelOutcome;
import dev.oncepay.provider.spi.CancelResult;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.OutOfTimeProviderFault;
import dev.oncepay.provider.spi.ProviderAdapter;
import dev.oncepay.provider.spi.ProviderFault;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.provider.spi.ProviderUnavailableException;
import dev.oncepay.validation.FieldError;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.Refund;
import dev.oncepay.provider.spi.FoundRefund;
import dev.oncepay.provider.spi.RefundResult;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.jboss.logging.Logger;

/**
 * What the use cases see of the providers: a charge ends in exactly one {@link ProviderOutcome},
 * a lookup in provider-neutral {@link FoundCharge}s. Every call goes to the payment's own provider
 * account, through that provider's adapter, under that account's guards and fleet breakers.
 */
@ApplicationScoped
public class ProviderGateway {
    private static final Logger LOG = Logger.getLogger(ProviderGateway.class);
    /** The functions ({@code quarkus.funqy.export}) that call providers, and so hold API keys; the webhook never does. */
    private static final Set<String> CALLERS = Set.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_RECONCILE,
            DeploymentSettings.FUNCTION_CHARGE_WORKER);
    /** A lookup's {@code Outcome} dimension: a list came back (possibly empty), or no answer (a fault). */
    static final String LOOKUP_FOUND = "found";
    static final String LOOKUP_FAILED = "failed";
    /** A cancel's {@code Operation} dimension (guarded as a lookup, measured apart). */
    static final String CANCEL = "cancel";
    /** A refund lookup's {@code Operation} dimension (guarded as a lookup, measured apart). */
    static final String REFUND_LOOKUP = "refund-lookup";

    private final ProviderCalls calls;
    private final ProviderAccounts accounts;
    private final ProviderAdapters adapters;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final ChargeRetryAfterConfig retryAfter;

    public ProviderGateway(ProviderCalls calls, ProviderAccounts accounts, ProviderAdapters adapters, Clock clock,
            EmbeddedMetrics metrics, OncepayConfig config) {
        this.retryAfter = config.charge();
        this.calls = calls;
        this.accounts = accounts;
        this.adapters = adapters;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** Whether {@code function} ({@code quarkus.funqy.export}) calls providers. */
    public static boolean callsProviders(String function) {
        return CALLERS.contains(function);
    }

    /** A function that calls providers refuses to start without a key for every account it may call. */
    void checkKeys(@Observes StartupEvent start,
            @ConfigProperty(name = "quarkus.funqy.export", defaultValue = "") String export) {
        List<ProviderAccount> keyless = accounts.withoutApiKey();
        if (callsProviders(export) && !keyless.isEmpty()) {
            throw new IllegalStateException("no API key configured for provider accounts " + keyless
                    + " (oncepay.provider.api-key, oncepay.provider.accounts.<name>.api-key)");
        }
    }

    /** What is wrong with {@code instrument} for a payment charged through {@code account}; empty if nothing. */
    public List<FieldError> check(ProviderAccount account, PaymentInstrument instrument) {
        return adapters.of(account.provider()).check(instrument);
    }

    /** {@link #charge(Payment, Instant)} within the charge call's configured budget. */
    public ChargeResult charge(Payment payment) {
        return charge(payment, clock.instant().plus(calls.chargeBudget()));
    }

    /**
     * Charges the payment at its provider account, retried only with the provider key derived from
     * its id, and over by {@code deadline} (or the configured budget, if that ends sooner): no wait
     * outlives it, and no attempt starts that could not end before it.
     */
    public ChargeResult charge(Payment payment, Instant deadline) {
        CallLog log = calls.chargeCall(Duration.between(clock.instant(), deadline));
        long start = System.nanoTime();
        ChargeResult result = sent(log, deadline, CHARGE_ENDINGS,
                () -> calls.charge(adapterOf(payment), accounts.endpoint(payment.providerAccount()), payment, log));
        measured(ProviderOperation.CHARGE.id(), result.outcome().name(), start, log);
        LOG.infof("charge paymentId=%s account=%s outcome=%s attempts=%d%s", payment.id(), payment.providerAccount(),
                result.outcome(), log.attempts(), result.detail() == null ? "" : " detail=" + result.detail());
        return result;
    }

    /** How a call that moves money ends when it raises instead of answering, in its own result type. */
    private record Endings<R>(BiFunction<ProviderRefusal, String, R> refused, Function<String, R> unknown,
            Function<String, R> notSent) {
    }

    private static final Endings<ChargeResult> CHARGE_ENDINGS = new Endings<>(ChargeResult::refused,
            ChargeResult::unknown, ChargeResult::notSent);
    private static final Endings<RefundResult> REFUND_ENDINGS = new Endings<>(RefundResult::refused,
            detail -> RefundResult.unknown(null, detail), RefundResult::notSent);

    /**
     * A charge or a refund sent under {@code log}: its answer, or what its failure means. Refused by
     * the bulkhead or an open breaker before any attempt: nothing sent. Anything that may have
     * reached the provider: unknown. No time for an attempt before {@code deadline}: nothing sent.
     */
    private static <R> R sent(CallLog log, Instant deadline, Endings<R> as, Supplier<R> call) {
        if (!log.attemptFitsAfter(Duration.ZERO)) {
            return as.notSent().apply("no time left for an attempt before " + deadline);
        }
        try {
            return call.get();
        } catch (BulkheadException full) {
            return as.refused().apply(ProviderRefusal.AT_CAPACITY, full.getMessage());
        } catch (CircuitBreakerOpenException open) {
            return log.anyMaybeExecuted() ? as.unknown().apply("circuit breaker opened after a possibly executed attempt")
                    : as.refused().apply(ProviderRefusal.BREAKER_OPEN, ProviderRefusal.BREAKER_OPEN.detail());
        } catch (TimeoutException timeout) {
            return as.unknown().apply("provider call timed out");
        } catch (ProviderFault fault) {
            return fault.maybeExecuted() || log.anyMaybeExecuted() ? as.unknown().apply(fault.getMessage())
                    : as.notSent().apply(fault.getMessage());
        }
    }

    /** {@link #chargesFor(Payment, Instant)} within the lookup call's configured budget. */
    public List<FoundCharge> chargesFor(Payment payment) {
        return chargesFor(payment, clock.instant().plus(calls.lookupBudget()));
    }

    /**
     * The charges the payment's provider account holds for it (design §4 lookup), asked by
     * {@code deadline} (or the configured budget, if that ends sooner). Anything but a well-formed
     * list is a fault, never an empty list: faults propagate, also when there is no time for an attempt.
     */
    public List<FoundCharge> chargesFor(Payment payment, Instant deadline) {
        return lookedUp(ProviderOperation.LOOKUP.id(), deadline,
                log -> calls.lookup(adapterOf(payment), accounts.endpoint(payment.providerAccount()), payment, log));
    }

    /**
     * One lookup by {@code deadline} (or the lookup budget, if that ends sooner), measured as
     * {@code operation}: faults propagate, also when there is no time for an attempt.
     */
    private <T> List<T> lookedUp(String operation, Instant deadline, Function<CallLog, List<T>> lookup) {
        CallLog log = calls.lookupCall(Duration.between(clock.instant(), deadline));
        if (!log.attemptFitsAfter(Duration.ZERO)) {
            throw new OutOfTimeProviderFault("no time left for a lookup before " + deadline, false, null);
        }
        long start = System.nanoTime();
        try {
            List<T> found = lookup.apply(log);
            measured(operation, LOOKUP_FOUND, start, log);
            return found;
        } catch (RuntimeException fault) {
            measured(operation, LOOKUP_FAILED, start, log);
            throw fault;
        }
    }

    /**
     * Cancels the payment's declined charge that stays open to the customer
     * ({@link ChargeResult#cancelRequired()}), by {@code deadline} (or the lookup budget, if that ends
     * sooner); {@code attempt} keys the request (one key per sweep check). Any fault is
     * {@link CancelOutcome#NOT_CANCELED}: the sweep asks again.
     */
    public CancelResult cancel(Payment payment, int attempt, Instant deadline) {
        CallLog log = calls.lookupCall(Duration.between(clock.instant(), deadline));
        if (!log.attemptFitsAfter(Duration.ZERO)) {
            return new CancelResult(CancelOutcome.NOT_CANCELED, "no time left for a cancel before " + deadline);
        }
        long start = System.nanoTime();
        CancelResult result;
        try {
            result = calls.cancel(adapterOf(payment), accounts.endpoint(payment.providerAccount()), payment, attempt, log);
        } catch (RuntimeException fault) {
            result = new CancelResult(CancelOutcome.NOT_CANCELED, "cancel failed: " + fault.getClass().getSimpleName()
                    + (fault.getMessage() == null ? "" : " (" + fault.getMessage() + ")"));
        }
        measured(CANCEL, result.outcome().name(), start, log);
        LOG.infof("cancel paymentId=%s account=%s outcome=%s attempts=%d detail=%s", payment.id(),
                payment.providerAccount(), result.outcome(), log.attempts(), result.detail());
        return result;
    }

    /**
     * One whole call's latency (retries and their waits included) by operation and outcome, and
     * its retries. A call refused before any attempt (breaker, bulkhead, no time) is measured too:
     * its short latency under {@code NOT_SENT} shows the protection at work.
     */
    private void measured(String name, String outcome, long startNanos, CallLog log) {
        metrics.measure(Metrics.PROVIDER_LATENCY, (System.nanoTime() - startNanos) / 1_000_000.0, "Milliseconds",
                Map.of(Metrics.DIM_OPERATION, name, Metrics.DIM_OUTCOME, outcome));
        if (log.attempts() > 1) {
            metrics.measure(Metrics.PROVIDER_RETRIES, log.attempts() - 1, "Count", Map.of(Metrics.DIM_OPERATION, name));
        }
    }

    /** {@link #refund(Refund, Payment, Instant)} within the charge call's configured budget. */
    public RefundResult refund(Refund refund, Payment payment) {
        return refund(refund, payment, clock.instant().plus(calls.chargeBudget()));
    }

    /**
     * Refunds {@code refund} of {@code payment} at the payment's provider account, retried only with
     * the refund's own provider key, over by {@code deadline} (or the charge call's budget, if that
     * ends sooner): a refund moves money as a charge does, under the account's refund breaker and bulkhead.
     */
    public RefundResult refund(Refund refund, Payment payment, Instant deadline) {
        CallLog log = calls.chargeCall(Duration.between(clock.instant(), deadline));
        long start = System.nanoTime();
        RefundResult result = sent(log, deadline, REFUND_ENDINGS, () -> calls.refund(adapterOf(payment),
                accounts.endpoint(payment.providerAccount()), refund, payment, log));
        measured(ProviderOperation.REFUND.id(), result.outcome().name(), start, log);
        LOG.infof("refund refundId=%s paymentId=%s account=%s outcome=%s attempts=%d%s", refund.id(), payment.id(),
                payment.providerAccount(), result.outcome(), log.attempts(),
                result.detail() == null ? "" : " detail=" + result.detail());
        return result;
    }

    /**
     * The refunds the payment's provider account holds for {@code refund}, asked by {@code deadline}
     * (or the lookup budget, if that ends sooner). Anything but a well-formed list is a fault, never
     * an empty list.
     */
    public List<FoundRefund> refundsFor(Refund refund, Payment payment, Instant deadline) {
        return lookedUp(REFUND_LOOKUP, deadline, log -> calls.refundLookup(adapterOf(payment),
                accounts.endpoint(payment.providerAccount()), refund, payment, log));
    }

    /** Why a refund through {@code account} would be refused without a call right now, if it would. */
    public Optional<ProviderRefusal> refundRefusal(ProviderAccount account) {
        return calls.refundRefusal(account);
    }

    /**
     * Why a charge through {@code account} would be refused without a call right now, if it would:
     * the fleet's charge breaker of the account or its bulkhead ({@link FleetProtection}), the same
     * for the charge API and the sweep, as this sandbox last read them (at most
     * {@code breaker-cache} ago).
     */
    public Optional<ProviderRefusal> chargeRefusal(ProviderAccount account) {
        return calls.chargeRefusal(account);
    }

    /**
     * The answer to a request the fleet's protection refused before any call: counted here, once
     * per refused request.
     */
    public ProviderUnavailableException refusedBeforeCall(ProviderRefusal refusal) {
        if (refusal == ProviderRefusal.AT_CAPACITY) {
            metrics.count(Metrics.PROVIDER_AT_CAPACITY);
        }
        return nothingSent(refusal, refusal.detail());
    }

    /**
     * The answer to a request that provably sent nothing: when to retry it depends on what
     * refused it ({@code null}: the provider itself, before executing).
     */
    public ProviderUnavailableException nothingSent(ProviderRefusal refusal, String reason) {
        return new ProviderUnavailableException(refusal, reason, refusal == ProviderRefusal.AT_CAPACITY
                ? retryAfter.atCapacityRetryAfter() : retryAfter.unavailableRetryAfter());
    }

    private ProviderAdapter adapterOf(Payment payment) {
        return adapters.of(payment.providerAccount().provider());
    }
}
