package dev.oncepay.provider.policy;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.config.ProviderCallConfig;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.Refund;
import dev.oncepay.provider.spi.FoundRefund;
import dev.oncepay.provider.spi.RefundResult;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.CancelResult;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.CredentialsRefusedFault;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.IndeterminateProviderFault;
import dev.oncepay.provider.spi.OutOfTimeProviderFault;
import dev.oncepay.provider.spi.ProviderAdapter;
import dev.oncepay.provider.spi.ProviderFault;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.provider.spi.ProviderReply;
import dev.oncepay.provider.spi.ReplyClass;
import dev.oncepay.provider.spi.RetryBudgetSpentFault;
import dev.oncepay.provider.spi.RetryableProviderFault;
import dev.oncepay.provider.spi.UnansweredProviderFault;
import dev.oncepay.provider.transport.ProviderHttp;
import io.smallrye.faulttolerance.api.TypedGuard;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;

/**
 * Provider calls behind SmallRye Fault Tolerance: the only retry layer for every provider (the
 * adapters and their HTTP clients never retry). SmallRye times each attempt out and retries; the
 * circuit breaker is the fleet's ({@link FleetBreaker}), one per provider account and operation,
 * asked before every attempt and told every attempt's result (so one provider's outage opens only
 * its own breakers, in every sandbox at once). A retry also needs a token of the account's
 * fleet-wide {@link RetryBudget}; without one the call ends with a {@link RetryBudgetSpentFault}.
 * Each whole call also holds a place in the account's fleet-wide {@link Bulkhead}, so a slow
 * account cannot take every sandbox.
 *
 * <p>Only {@link RetryableProviderFault} is retried, always with the same provider idempotency
 * key; a timeout or a reset after send is never retried for a charge: it becomes UNKNOWN. Every
 * wait is decided here, before the fault is thrown (design rule 12): the provider's
 * {@code Retry-After} or the full-jitter backoff, and only if that wait plus a whole further
 * attempt fits the call's deadline ({@link CallLog}); otherwise the retries end with an
 * {@link OutOfTimeProviderFault}. What a reply means is the adapter's to say
 * ({@link ProviderAdapter#classify}); what to do about it is decided here, alike for all.
 */
@ApplicationScoped
public class ProviderCalls {
    private final ProviderCallConfig chargeLimits;
    private final ProviderCallConfig lookupLimits;
    private final Duration maxRetryAfter;
    private final Duration backoffCap;
    private final Duration readTimeout;
    private final FleetProtection fleet;
    private final FleetBreaker breaker;
    private final RetryBudget retryBudget;
    private final Bulkhead bulkhead;
    /** Retry and per-attempt timeout; they hold no state of any account, so one of each serves all. */
    private final TypedGuard<ChargeResult> chargeRetries;
    private final TypedGuard<ChargeResult> chargeAttempts;
    private final TypedGuard<List<FoundCharge>> lookupRetries;
    private final TypedGuard<List<FoundCharge>> lookupAttempts;
    private final TypedGuard<CancelResult> cancelRetries;
    private final TypedGuard<CancelResult> cancelAttempts;
    private final TypedGuard<RefundResult> refundRetries;
    private final TypedGuard<RefundResult> refundAttempts;
    private final TypedGuard<List<FoundRefund>> refundLookupRetries;
    private final TypedGuard<List<FoundRefund>> refundLookupAttempts;

    public ProviderCalls(OncepayConfig config, FleetProtection fleet) {
        this.chargeLimits = config.provider().chargeCall();
        this.lookupLimits = config.provider().lookupCall();
        this.maxRetryAfter = config.provider().maxRetryAfter();
        this.backoffCap = config.provider().backoffCap();
        this.readTimeout = config.provider().readTimeout();
        this.fleet = fleet;
        this.breaker = fleet.breaker();
        this.retryBudget = fleet.retryBudget();
        this.bulkhead = fleet.bulkhead();
        this.chargeRetries = retries(ChargeResult.class, chargeLimits);
        this.chargeAttempts = attempts(ChargeResult.class, chargeLimits);
        this.lookupRetries = retries(listOf(), lookupLimits);
        this.lookupAttempts = attempts(listOf(), lookupLimits);
        this.cancelRetries = retries(CancelResult.class, lookupLimits);
        this.cancelAttempts = attempts(CancelResult.class, lookupLimits);
        this.refundRetries = retries(RefundResult.class, chargeLimits);
        this.refundAttempts = attempts(RefundResult.class, chargeLimits);
        this.refundLookupRetries = retries(listOf(), lookupLimits);
        this.refundLookupAttempts = attempts(listOf(), lookupLimits);
    }

    /** A charge call that ends by {@code deadlineIn} from now, or by its configured budget if that is sooner. */
    public CallLog chargeCall(Duration deadlineIn) {
        return call(chargeLimits, deadlineIn);
    }

    /** A lookup call that ends by {@code deadlineIn} from now, or by its configured budget if that is sooner. */
    public CallLog lookupCall(Duration deadlineIn) {
        return call(lookupLimits, deadlineIn);
    }

    public Duration chargeBudget() {
        return chargeLimits.budget();
    }

    public Duration lookupBudget() {
        return lookupLimits.budget();
    }

    private CallLog call(ProviderCallConfig limits, Duration deadlineIn) {
        Duration budget = deadlineIn.compareTo(limits.budget()) < 0 ? deadlineIn : limits.budget();
        return new CallLog(budget, limits.attemptTimeout(), new FullJitterBackoff(limits.backoffBase(), backoffCap));
    }

    /** Why the fleet's protection of {@code account} refuses charge calls right now, if it does. */
    public Optional<ProviderRefusal> chargeRefusal(ProviderAccount account) {
        return fleet.refusal(account, ProviderOperation.CHARGE);
    }

    /** Why the fleet's protection of {@code account} refuses refund calls right now, if it does. */
    public Optional<ProviderRefusal> refundRefusal(ProviderAccount account) {
        return fleet.refusal(account, ProviderOperation.REFUND);
    }

    /**
     * Refunds {@code refund} of {@code payment} at {@code endpoint}, retried within {@code log}'s
     * deadline with the refund's own provider key; like a charge, never re-sent after a timeout or
     * a reset: it moves money.
     */
    public RefundResult refund(ProviderAdapter adapter, AccountEndpoint endpoint, Refund refund, Payment payment,
            CallLog log) {
        return guarded(refundRetries, refundAttempts, chargeLimits, endpoint.account(), ProviderOperation.REFUND, log,
                () -> {
                    log.attempted();
                    ProviderReply reply = exchange(() -> adapter.sendRefund(endpoint, refund, payment), log, false);
                    return adapter.readRefund(answer(adapter, reply, log), refund);
                });
    }

    /** The refunds {@code endpoint} holds for {@code refund}; faults propagate, never an empty list. */
    public List<FoundRefund> refundLookup(ProviderAdapter adapter, AccountEndpoint endpoint, Refund refund,
            Payment payment, CallLog log) {
        return guarded(refundLookupRetries, refundLookupAttempts, lookupLimits, endpoint.account(),
                ProviderOperation.LOOKUP, log, () -> {
                    log.attempted();
                    ProviderReply reply = exchange(() -> adapter.sendRefundLookup(endpoint, refund, payment), log, true);
                    return adapter.readRefundLookup(answer(adapter, reply, log), refund);
                });
    }

    /** Charges {@code payment} at {@code endpoint}, retried within {@code log}'s deadline. */
    public ChargeResult charge(ProviderAdapter adapter, AccountEndpoint endpoint, Payment payment, CallLog log) {
        return guarded(chargeRetries, chargeAttempts, chargeLimits, endpoint.account(), ProviderOperation.CHARGE, log,
                () -> {
                    log.attempted();
                    ProviderReply reply = exchange(() -> adapter.sendCharge(endpoint, payment), log, false);
                    return adapter.readCharge(answer(adapter, reply, log), payment);
                });
    }

    /** The charges {@code endpoint} holds for {@code payment}; faults propagate, never an empty list. */
    public List<FoundCharge> lookup(ProviderAdapter adapter, AccountEndpoint endpoint, Payment payment, CallLog log) {
        return guarded(lookupRetries, lookupAttempts, lookupLimits, endpoint.account(), ProviderOperation.LOOKUP, log,
                () -> {
                    log.attempted();
                    // A lookup changes nothing at the provider, so unlike a charge it may be asked again
                    // after a timeout or a reset.
                    ProviderReply reply = exchange(() -> adapter.sendLookup(endpoint, payment), log, true);
                    ProviderReply answer = answer(adapter, reply, log);
                    return adapter.readLookup(answer, payment); // anything but a list is no answer: a fault, not retried
                });
    }

    /**
     * Cancels {@code payment}'s open charge at {@code endpoint} (check {@code attempt}), guarded as a
     * lookup is (its limits, breaker and bulkhead): it moves no money, and may be sent again after a
     * timeout or a reset.
     */
    public CancelResult cancel(ProviderAdapter adapter, AccountEndpoint endpoint, Payment payment, int attempt,
            CallLog log) {
        return guarded(cancelRetries, cancelAttempts, lookupLimits, endpoint.account(), ProviderOperation.LOOKUP, log,
                () -> {
                    log.attempted();
                    ProviderReply reply = exchange(() -> adapter.sendCancel(endpoint, payment, attempt), log, true);
                    return adapter.readCancel(answer(adapter, reply, log), payment);
                });
    }

    @SuppressWarnings("unchecked")
    private static <T> Class<List<T>> listOf() {
        return (Class<List<T>>) (Class<?>) List.class;
    }

    private static <T> TypedGuard<T> retries(Class<T> type, ProviderCallConfig limits) {
        return TypedGuard.create(type)
                .withRetry()
                        .maxRetries(limits.maxRetries())
                        .delay(limits.backoffBase().toMillis(), ChronoUnit.MILLIS)
                        .maxDuration(limits.budget().toMillis(), ChronoUnit.MILLIS)
                        .jitter(0, ChronoUnit.MILLIS)
                        .retryOn(RetryableProviderFault.class)
                        .withCustomBackoff().strategy(DecidedDelay::new).done()
                        .done()
                .build();
    }

    private static <T> TypedGuard<T> attempts(Class<T> type, ProviderCallConfig limits) {
        return TypedGuard.create(type)
                .withTimeout().duration(limits.attemptTimeout().toMillis(), ChronoUnit.MILLIS).done()
                .build();
    }

    /**
     * The call inside the account's bulkhead (refused: a {@code BulkheadException}, nothing sent),
     * under its retries; each attempt asks the fleet breaker first (refused: a
     * {@code CircuitBreakerOpenException}, nothing sent), then runs under its timeout, and its
     * result goes to the breaker — outside the timeout, so a timed-out attempt is counted too.
     */
    private <T> T guarded(TypedGuard<T> retries, TypedGuard<T> attempts, ProviderCallConfig limits,
            ProviderAccount account, ProviderOperation operation, CallLog log, Callable<T> attempt) {
        try (Bulkhead.InFlight call = bulkhead.enter(account, operation)) {
            try {
                return attempted(retries, attempts, limits, account, operation, log, attempt);
            } finally {
                if (log.anyHung()) {
                    call.hung();
                }
            }
        }
    }

    private <T> T attempted(TypedGuard<T> retries, TypedGuard<T> attempts, ProviderCallConfig limits,
            ProviderAccount account, ProviderOperation operation, CallLog log, Callable<T> attempt) {
        return guarded(retries, () -> {
            if (log.attempts() == 0) {
                retryBudget.earn(account, operation);
            }
            FleetBreaker.Admission admission = breaker.admit(account, operation);
            long start = System.nanoTime();
            try {
                T answer = guarded(attempts, attempt);
                breaker.record(account, operation, admission, null, since(start));
                return answer;
            } catch (RetryableProviderFault retryable) {
                breaker.record(account, operation, admission, retryable.getMessage(), since(start));
                // Only a retry SmallRye would make takes a token; a failed probe re-opened the
                // breaker, which refuses the retry without one.
                if (!admission.probe() && log.attempts() <= limits.maxRetries()
                        && !retryBudget.mayRetry(account, operation)) {
                    throw new RetryBudgetSpentFault(retryable);
                }
                throw retryable;
            } catch (ProviderFault | TimeoutException failed) {
                if (failed instanceof TimeoutException) {
                    log.hung();
                }
                breaker.record(account, operation, admission, failed.getMessage(), since(start));
                throw failed;
            } catch (RuntimeException notAProviderFailure) {
                breaker.record(account, operation, admission, null, since(start));
                throw notAProviderFailure;
            }
        });
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private static <T> T guarded(TypedGuard<T> guard, Callable<T> attempt) {
        try {
            return guard.call(attempt);
        } catch (RuntimeException fault) {
            throw fault;
        } catch (Exception checked) {
            throw new IllegalStateException(checked);
        }
    }

    /** One exchange; a transport failure becomes the fault it means. */
    private ProviderReply exchange(Callable<ProviderReply> send, CallLog log, boolean askAgainIfUnanswered) {
        long sent = System.nanoTime();
        try {
            return send.call();
        } catch (RuntimeException transport) {
            if (ProviderHttp.neverSent(transport)) {
                throw retryOrEnd("connection to the provider failed", false, null, log, transport);
            }
            if (since(sent).compareTo(readTimeout) >= 0) {
                log.hung(); // silent until the read timeout, not reset: it may still run there
            }
            String detail = "no answer from the provider: " + transport.getClass().getSimpleName();
            if (askAgainIfUnanswered) {
                throw retryOrEnd(detail, false, null, log, transport);
            }
            log.mayHaveExecuted();
            throw new IndeterminateProviderFault(detail, transport);
        } catch (Exception checked) {
            throw new IllegalStateException(checked);
        }
    }

    /** The reply if the adapter reads it as an answer; otherwise the fault its class calls for. */
    private ProviderReply answer(ProviderAdapter adapter, ProviderReply reply, CallLog log) {
        ReplyClass kind = adapter.classify(reply);
        if (kind instanceof ReplyClass.Retry retry) {
            if (retry.maybeExecuted()) {
                log.mayHaveExecuted();
            }
            throw retryOrEnd(retry.detail(), retry.maybeExecuted(), retry.retryAfter(), log, null);
        }
        if (kind instanceof ReplyClass.NoAnswer none) {
            if (none.maybeExecuted()) {
                log.mayHaveExecuted();
            }
            throw new UnansweredProviderFault(none.detail(), none.maybeExecuted());
        }
        if (kind instanceof ReplyClass.CredentialsRefused refused) {
            throw new CredentialsRefusedFault(refused.detail());
        }
        return reply;
    }

    /**
     * Another attempt, after the provider's {@code Retry-After} or else the next backoff, if that
     * wait plus a whole attempt fits what is left of the call; otherwise the retries end here.
     */
    private ProviderFault retryOrEnd(String detail, boolean maybeExecuted, Duration retryAfter, CallLog log,
            Throwable cause) {
        if (retryAfter != null && retryAfter.compareTo(maxRetryAfter) > 0) {
            return new OutOfTimeProviderFault(detail + "; asked to wait " + retryAfter.toSeconds()
                    + " s, longer than a call waits (" + maxRetryAfter.toMillis() + " ms)", maybeExecuted, cause);
        }
        Duration wait = retryAfter != null ? retryAfter : log.nextBackoff();
        if (!log.attemptFitsAfter(wait)) {
            return new OutOfTimeProviderFault(detail + "; another attempt after " + wait.toMillis()
                    + " ms would not end within the " + log.remaining().toMillis() + " ms left", maybeExecuted, cause);
        }
        return new RetryableProviderFault(detail, maybeExecuted, wait, cause);
    }

    /** A {@code Retry-After} header's wait (seconds or an HTTP date), or {@code null} if absent or unreadable. */
    public static Duration retryAfter(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(value.trim())));
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration until = Duration.between(ZonedDateTime.now(at.getZone()), at);
                return until.isNegative() ? Duration.ZERO : until;
            } catch (RuntimeException unparseable) {
                return null;
            }
        }
    }
}
