package dev.oncepay.provider;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.Metrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.ProviderAccount;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.faulttolerance.api.TypedGuard;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.ConnectException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.jboss.logging.Logger;

/**
 * Provider calls behind SmallRye Fault Tolerance: the only retry layer for every provider (the
 * adapters and their HTTP clients never retry). Each provider account has its own guards, one for
 * charges and one for lookups — timeout per attempt, retry, circuit breaker — so one provider's
 * outage opens only its own breakers.
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
    private static final Logger LOG = Logger.getLogger(ProviderCalls.class);
    private static final double BREAKER_FAILURE_RATIO = 0.5;

    private final OncepayConfig.Call chargeLimits;
    private final OncepayConfig.Call lookupLimits;
    private final Duration maxRetryAfter;
    private final Duration backoffCap;
    private final EmbeddedMetrics metrics;
    private final Map<ProviderAccount, TypedGuard<ChargeResult>> chargeGuards = new ConcurrentHashMap<>();
    private final Map<ProviderAccount, TypedGuard<List<FoundCharge>>> lookupGuards = new ConcurrentHashMap<>();
    private final CircuitBreakerMaintenance breakers;

    public ProviderCalls(OncepayConfig config, EmbeddedMetrics metrics, CircuitBreakerMaintenance breakers) {
        this.breakers = breakers;
        this.chargeLimits = config.provider().chargeCall();
        this.lookupLimits = config.provider().lookupCall();
        this.maxRetryAfter = config.provider().maxRetryAfter();
        this.backoffCap = config.provider().backoffCap();
        this.metrics = metrics;
    }

    /** A charge call that ends by {@code deadlineIn} from now, or by its configured budget if that is sooner. */
    CallLog chargeCall(Duration deadlineIn) {
        return call(chargeLimits, deadlineIn);
    }

    /** A lookup call that ends by {@code deadlineIn} from now, or by its configured budget if that is sooner. */
    CallLog lookupCall(Duration deadlineIn) {
        return call(lookupLimits, deadlineIn);
    }

    Duration chargeBudget() {
        return chargeLimits.budget();
    }

    Duration lookupBudget() {
        return lookupLimits.budget();
    }

    private CallLog call(OncepayConfig.Call limits, Duration deadlineIn) {
        Duration budget = deadlineIn.compareTo(limits.budget()) < 0 ? deadlineIn : limits.budget();
        return new CallLog(budget, limits.attemptTimeout(), new FullJitterBackoff(limits.backoffBase(), backoffCap));
    }

    /** Whether the charge breaker of {@code account} refuses calls right now. */
    boolean chargeBreakerOpen(ProviderAccount account) {
        // A breaker exists from the account's first call; before that it is closed.
        return chargeGuards.containsKey(account)
                && breakers.currentState(chargeBreaker(account)) == CircuitBreakerState.OPEN;
    }

    /** Charges {@code payment} at {@code endpoint}, retried within {@code log}'s deadline. */
    ChargeResult charge(ProviderAdapter adapter, AccountEndpoint endpoint, Payment payment, CallLog log) {
        TypedGuard<ChargeResult> guard = chargeGuards.computeIfAbsent(endpoint.account(),
                account -> guard(ChargeResult.class, chargeBreaker(account), chargeLimits));
        return guarded(guard, () -> {
            log.attempted();
            ProviderReply reply = exchange(() -> adapter.sendCharge(endpoint, payment), log, false);
            return adapter.readCharge(answer(adapter, reply, log), payment);
        });
    }

    /** The charges {@code endpoint} holds for {@code payment}; faults propagate, never an empty list. */
    List<FoundCharge> lookup(ProviderAdapter adapter, AccountEndpoint endpoint, Payment payment, CallLog log) {
        TypedGuard<List<FoundCharge>> guard = lookupGuards.computeIfAbsent(endpoint.account(),
                account -> guard(listOfCharges(), "lookup:" + account, lookupLimits));
        return guarded(guard, () -> {
            log.attempted();
            // A lookup changes nothing at the provider, so unlike a charge it may be asked again
            // after a timeout or a reset.
            ProviderReply reply = exchange(() -> adapter.sendLookup(endpoint, payment), log, true);
            ProviderReply answer = answer(adapter, reply, log);
            return adapter.readLookup(answer, payment); // anything but a list is no answer: a fault, not retried
        });
    }

    private static String chargeBreaker(ProviderAccount account) {
        return "charge:" + account;
    }

    @SuppressWarnings("unchecked")
    private static Class<List<FoundCharge>> listOfCharges() {
        return (Class<List<FoundCharge>>) (Class<?>) List.class;
    }

    private <T> TypedGuard<T> guard(Class<T> type, String breaker, OncepayConfig.Call limits) {
        return TypedGuard.create(type)
                .withDescription(breaker)
                .withCircuitBreaker()
                        .name(breaker)
                        .requestVolumeThreshold(limits.breakerVolume())
                        .failureRatio(BREAKER_FAILURE_RATIO)
                        .delay(limits.breakerDelay().toMillis(), ChronoUnit.MILLIS)
                        .successThreshold(1)
                        .failOn(Set.of(ProviderFault.class, TimeoutException.class))
                        .onStateChange(state -> breakerMoved(breaker, state))
                        .done()
                .withRetry()
                        .maxRetries(limits.maxRetries())
                        .delay(limits.backoffBase().toMillis(), ChronoUnit.MILLIS)
                        .maxDuration(limits.budget().toMillis(), ChronoUnit.MILLIS)
                        .jitter(0, ChronoUnit.MILLIS)
                        .retryOn(RetryableProviderFault.class)
                        .withCustomBackoff().strategy(DecidedDelay::new).done()
                        .done()
                .withTimeout().duration(limits.attemptTimeout().toMillis(), ChronoUnit.MILLIS).done()
                .build();
    }

    /** Breaker transitions are the signal of a provider outage: log every one, count the openings. */
    private void breakerMoved(String breaker, CircuitBreakerState state) {
        LOG.warnf("circuit breaker %s is now %s", breaker, state);
        if (state == CircuitBreakerState.OPEN) {
            metrics.count(Metrics.BREAKER_OPEN);
        }
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
        try {
            return send.call();
        } catch (RuntimeException transport) {
            if (causedBy(transport, ConnectException.class)) {
                throw retryOrEnd("connection to the provider failed", false, null, log, transport);
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

    private static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
