package dev.oncepay.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.OncepayConfig;
import io.smallrye.faulttolerance.api.CircuitBreakerName;
import io.smallrye.faulttolerance.api.CustomBackoff;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.net.ConnectException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/**
 * The PSP calls behind SmallRye Fault Tolerance: the only retry layer for provider calls (the
 * REST client itself never retries). Annotation values are defaults; each can be overridden
 * with {@code dev.oncepay.provider.PspCalls/charge/Retry/maxRetries=...} and the like.
 *
 * <p>Only {@link RetryableProviderFault} is retried, always with the same provider idempotency
 * key; a timeout or a reset after send is never retried here: it becomes UNKNOWN. Every wait is
 * decided here, before the fault is thrown (design rule 12): the provider's {@code Retry-After}
 * or the full-jitter backoff, and only if that wait plus a whole further attempt fits the call's
 * deadline ({@link CallLog}); otherwise the retries end with an {@link OutOfTimeProviderFault}.
 */
@ApplicationScoped
public class PspCalls {
    /** Circuit breaker of the PSP's charge endpoint; reconcile also defers while it is open. */
    public static final String CHARGE_BREAKER = "psp-charge";
    public static final String LOOKUP_BREAKER = "psp-lookup";

    // The guards' time limits, named so CallLimits knows them without reflecting on the annotations.
    private static final long CHARGE_BUDGET_SECONDS = 8;
    private static final long CHARGE_ATTEMPT_SECONDS = 6;
    /** An attempt (5 s, the REST client's read timeout) fits the budget (6 s): a retry only follows a fast failure. */
    private static final long LOOKUP_BUDGET_SECONDS = 6;
    private static final long LOOKUP_ATTEMPT_SECONDS = 5;
    private static final long BACKOFF_BASE_MILLIS = 100;

    private final PspApi api;
    private final ObjectMapper json;
    private final Duration maxRetryAfter;
    private final Duration backoffCap;
    private final CallLimits chargeLimits;
    private final CallLimits lookupLimits;

    public PspCalls(@RestClient PspApi api, ObjectMapper json, OncepayConfig config) {
        this.api = api;
        this.json = json;
        this.maxRetryAfter = config.provider().maxRetryAfter();
        this.backoffCap = config.provider().backoffCap();
        this.chargeLimits = CallLimits.of(ConfigProvider.getConfig(), "charge", CHARGE_BUDGET_SECONDS,
                CHARGE_ATTEMPT_SECONDS, BACKOFF_BASE_MILLIS);
        this.lookupLimits = CallLimits.of(ConfigProvider.getConfig(), "chargesByReference", LOOKUP_BUDGET_SECONDS,
                LOOKUP_ATTEMPT_SECONDS, BACKOFF_BASE_MILLIS);
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

    private CallLog call(CallLimits limits, Duration deadlineIn) {
        Duration budget = deadlineIn.compareTo(limits.budget()) < 0 ? deadlineIn : limits.budget();
        return new CallLog(budget, limits.attemptTimeout(), new FullJitterBackoff(limits.backoffBase(), backoffCap));
    }

    @CircuitBreakerName(CHARGE_BREAKER)
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 10, delayUnit = ChronoUnit.SECONDS,
            successThreshold = 1, failOn = { ProviderFault.class, TimeoutException.class })
    @Retry(maxRetries = 3, delay = BACKOFF_BASE_MILLIS, maxDuration = CHARGE_BUDGET_SECONDS,
            durationUnit = ChronoUnit.SECONDS, jitter = 0, retryOn = RetryableProviderFault.class)
    @CustomBackoff(DecidedDelay.class)
    @Timeout(value = CHARGE_ATTEMPT_SECONDS, unit = ChronoUnit.SECONDS)
    public ChargeResult charge(String idempotencyKey, PspChargeRequest body, CallLog log) {
        log.attempted();
        return answer(() -> api.charge(idempotencyKey, body), log).toChargeResult(body, json);
    }

    @CircuitBreakerName(LOOKUP_BREAKER)
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 10, delayUnit = ChronoUnit.SECONDS,
            successThreshold = 1, failOn = { ProviderFault.class, TimeoutException.class })
    @Retry(maxRetries = 2, delay = BACKOFF_BASE_MILLIS, maxDuration = LOOKUP_BUDGET_SECONDS,
            durationUnit = ChronoUnit.SECONDS, jitter = 0, retryOn = RetryableProviderFault.class)
    @CustomBackoff(DecidedDelay.class)
    @Timeout(value = LOOKUP_ATTEMPT_SECONDS, unit = ChronoUnit.SECONDS)
    public List<PspCharge> chargesByReference(String reference, CallLog log) {
        log.attempted();
        PspAnswer answer;
        try {
            answer = answer(() -> api.chargesByReference(reference), log);
        } catch (IndeterminateProviderFault noAnswer) {
            // A lookup changes nothing at the provider, so unlike a charge it may be asked again
            // after a timeout or a reset.
            throw retryOrEnd(noAnswer.getMessage(), false, null, log, noAnswer);
        }
        return answer.toLookup(json); // anything but a list is no answer: a fault, not retried
    }

    /** The provider's answer, or the fault that it gave none we may read as one. */
    private PspAnswer answer(Supplier<Response> call, CallLog log) {
        Response response;
        try {
            response = call.get();
        } catch (WebApplicationException error) {
            response = error.getResponse();
        } catch (RuntimeException transport) {
            if (causedBy(transport, ConnectException.class)) {
                throw retryOrEnd("connection to the provider failed", false, null, log, transport);
            }
            log.mayHaveExecuted();
            throw new IndeterminateProviderFault("no answer from the provider: " + transport.getClass().getSimpleName(),
                    transport);
        }
        int status = response.getStatus();
        if (status >= 500) {
            log.mayHaveExecuted();
            throw retryOrEnd("provider answered HTTP " + status, true, retryAfter(response), log, null);
        }
        if (status == 408 || status == 429) {
            // Refused before execution: nothing was charged by this attempt.
            throw retryOrEnd("provider answered HTTP " + status, false, retryAfter(response), log, null);
        }
        if (status == 409) {
            // The key is still in flight at the provider (an earlier attempt of ours may be running
            // there): ask again with the same key; our payload for a key never changes.
            log.mayHaveExecuted();
            throw retryOrEnd("provider reports the key in flight (HTTP 409)", true, retryAfter(response), log, null);
        }
        if (status == 401 || status == 403) {
            throw new CredentialsRefusedFault("provider refused our credentials (HTTP " + status + ")");
        }
        return new PspAnswer(status, body(response));
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

    /** The body as text; none when there is none or it broke off (the status still stands, the body is no answer). */
    private static String body(Response response) {
        try {
            return response.hasEntity() ? response.readEntity(String.class) : null;
        } catch (RuntimeException brokenOff) {
            return null;
        }
    }

    static Duration retryAfter(Response response) {
        return ProviderReply.retryAfter(response.getHeaderString("Retry-After"));
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
