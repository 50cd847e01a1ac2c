package dev.oncepay.api;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.idempotency.FingerprintMismatchException;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.validation.InvalidRequestException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The problem+json answer to the exceptions every API of the charge function answers alike
 * (payments, wallets, the operator API). Each API catches its own exceptions first and hands the
 * rest here, with the words for a store failure and an internal error that fit its resources.
 */
@ApplicationScoped
public class ProblemMapping {
    private static final Logger LOG = Logger.getLogger(ProblemMapping.class);

    private final HttpResponses responses;
    private final OncepayConfig config;

    public ProblemMapping(HttpResponses responses, OncepayConfig config) {
        this.responses = responses;
        this.config = config;
    }

    /**
     * @param storeUnavailable the detail of a {@code 503 store-unavailable}: what the failure did not change
     * @param internal the detail of a {@code 500}: how to retry safely
     */
    public HttpApiResponse problemFor(RuntimeException e, String storeUnavailable, String internal) {
        if (e instanceof UnauthenticatedException) {
            return responses.problem(ProblemType.UNAUTHENTICATED, e.getMessage());
        }
        if (e instanceof ForbiddenException) {
            return responses.problem(ProblemType.FORBIDDEN, e.getMessage());
        }
        if (e instanceof InvalidRequestException invalid) {
            return responses.invalid(invalid);
        }
        if (e instanceof RequestInFlightException inFlight) {
            return responses.problem(ProblemType.REQUEST_IN_FLIGHT, e.getMessage(), Map.of(),
                    HttpResponses.retryAfter(inFlight.retryAfter()));
        }
        if (e instanceof FingerprintMismatchException) {
            return responses.problem(ProblemType.KEY_REUSED, e.getMessage());
        }
        if (e instanceof SdkException) {
            LOG.warnf("store unavailable: %s: %s", e.getClass().getSimpleName(), e.getMessage());
            return responses.problem(ProblemType.STORE_UNAVAILABLE, storeUnavailable, Map.of(),
                    HttpResponses.retryAfter(config.charge().unavailableRetryAfter()));
        }
        // State is safe whatever failed: a held key is recovered by a retry after its lease.
        LOG.errorf("unexpected %s: %s", e.getClass().getName(), e.getMessage());
        return responses.problem(ProblemType.INTERNAL, internal);
    }
}
