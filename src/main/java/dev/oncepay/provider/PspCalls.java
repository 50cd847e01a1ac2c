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
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.Supplier;
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
 * key; a timeout or a reset after send is never retried here: it becomes UNKNOWN.
 */
@ApplicationScoped
public class PspCalls {
    /** Circuit breaker of the PSP's charge endpoint; reconcile also defers while it is open. */
    public static final String CHARGE_BREAKER = "psp-charge";
    public static final String LOOKUP_BREAKER = "psp-lookup";

    private final PspApi api;
    private final ObjectMapper json;
    private final Duration maxRetryAfter;

    public PspCalls(@RestClient PspApi api, ObjectMapper json, OncepayConfig config) {
        this.api = api;
        this.json = json;
        this.maxRetryAfter = config.provider().maxRetryAfter();
    }

    @CircuitBreakerName(CHARGE_BREAKER)
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 10, delayUnit = ChronoUnit.SECONDS,
            successThreshold = 1, failOn = { ProviderFault.class, TimeoutException.class })
    @Retry(maxRetries = 3, delay = 100, maxDuration = 8, durationUnit = ChronoUnit.SECONDS, jitter = 0,
            retryOn = RetryableProviderFault.class)
    @CustomBackoff(FullJitterBackoff.class)
    @Timeout(value = 6, unit = ChronoUnit.SECONDS)
    public ChargeResult charge(String idempotencyKey, PspChargeRequest body, CallLog log) {
        log.attempted();
        return answer(() -> api.charge(idempotencyKey, body), log).toChargeResult(body, json);
    }

    @CircuitBreakerName(LOOKUP_BREAKER)
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 10, delayUnit = ChronoUnit.SECONDS,
            successThreshold = 1, failOn = { ProviderFault.class, TimeoutException.class })
    @Retry(maxRetries = 2, delay = 100, maxDuration = 5, durationUnit = ChronoUnit.SECONDS, jitter = 0,
            retryOn = { RetryableProviderFault.class, IndeterminateProviderFault.class })
    @CustomBackoff(FullJitterBackoff.class)
    @Timeout(value = 6, unit = ChronoUnit.SECONDS)
    public List<PspCharge> chargesByReference(String reference) {
        // A lookup changes nothing at the provider, so unlike a charge it may be retried after a
        // timeout, and after an answer without its list.
        return answer(() -> api.chargesByReference(reference), new CallLog()).toLookup(json);
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
                throw new RetryableProviderFault("connection to the provider failed", false, null, transport);
            }
            log.mayHaveExecuted();
            throw new IndeterminateProviderFault("no answer from the provider: " + transport.getClass().getSimpleName(),
                    transport);
        }
        int status = response.getStatus();
        if (status >= 500) {
            log.mayHaveExecuted();
            throw new RetryableProviderFault("provider answered HTTP " + status, true, retryAfter(response), null);
        }
        if (status == 408) {
            throw new RetryableProviderFault("provider answered HTTP 408", false, retryAfter(response), null);
        }
        if (status == 429) {
            Duration wait = retryAfter(response);
            if (wait != null && wait.compareTo(maxRetryAfter) > 0) {
                throw new ThrottledProviderFault("provider asked to wait " + wait.toSeconds() + " s");
            }
            throw new RetryableProviderFault("provider answered HTTP 429", false, wait, null);
        }
        if (status == 409) {
            // The key is still in flight at the provider (an earlier attempt of ours may be running
            // there): ask again with the same key; our payload for a key never changes.
            log.mayHaveExecuted();
            throw new RetryableProviderFault("provider reports the key in flight (HTTP 409)", true, retryAfter(response),
                    null);
        }
        if (status == 401 || status == 403) {
            throw new ThrottledProviderFault("provider refused our credentials (HTTP " + status + ")");
        }
        return new PspAnswer(status, body(response));
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
        String value = response.getHeaderString("Retry-After");
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(value.trim())));
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                return Duration.between(ZonedDateTime.now(at.getZone()), at).isNegative() ? Duration.ZERO
                        : Duration.between(ZonedDateTime.now(at.getZone()), at);
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
