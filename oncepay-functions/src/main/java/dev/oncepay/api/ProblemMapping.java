package dev.oncepay.api;

import dev.oncepay.admin.ChargeMismatchException;
import dev.oncepay.admin.NoChargeUnprovenException;
import dev.oncepay.admin.OrderHeldException;
import dev.oncepay.admin.ProviderContradictsException;
import dev.oncepay.admin.ResolutionNotAllowedException;
import dev.oncepay.order.OrderInProgressException;
import dev.oncepay.order.OrderMismatchException;
import dev.oncepay.order.OrderRefusedException;
import dev.oncepay.refund.PaymentNotFoundException;
import dev.oncepay.refund.PaymentNotRefundableException;
import dev.oncepay.refund.RefundExceedsChargeException;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.idempotency.FingerprintMismatchException;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.provider.spi.ProviderUnavailableException;
import dev.oncepay.provider.webhook.InvalidSignatureException;
import dev.oncepay.provider.webhook.MalformedEventException;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.wallet.CurrencyMismatchException;
import dev.oncepay.wallet.EntriesNotListedException;
import dev.oncepay.wallet.InsufficientFundsException;
import dev.oncepay.webhook.UnknownProviderException;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jboss.logging.Logger;
import dev.oncepay.queue.QueueUnavailableException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The one problem+json answer to each exception an API lets through: payments, wallets, the
 * operator API and webhooks. The APIs differ only where their resources need other words
 * ({@link Api}), and in one rule: a webhook's unexpected failure is not answered but fails the
 * invocation, so API Gateway answers 5xx and the provider redelivers.
 */
@ApplicationScoped
public class ProblemMapping {
    private static final Logger LOG = Logger.getLogger(ProblemMapping.class);
    /** Providers redeliver on their own schedule; this is a hint for those that read it. */
    private static final Duration WEBHOOK_STORE_RETRY_AFTER = Duration.ofSeconds(5);

    /** The APIs, each with the detail of a {@code 503 store-unavailable} (what the failure did not change) and of a {@code 500} (how to retry safely). */
    public enum Api {
        PAYMENTS("the payment store is unavailable and this request sent nothing to the provider; retry later"
                + " (a payment: with the same Idempotency-Key, which keeps any payment taken under it)",
                "an internal error occurred; retry with the same Idempotency-Key"),
        REFUNDS("the payment store is unavailable and this request sent no refund to the provider; retry later"
                + " with the same Idempotency-Key, which keeps any refund made under it",
                "an internal error occurred; retry with the same Idempotency-Key"),
        WALLETS("the wallet store is unavailable; retry later (a credit or debit: with"
                + " the same Idempotency-Key, which applies it at most once)",
                "an internal error occurred; retry with the same Idempotency-Key"),
        OPERATOR("the payment store is unavailable; retry later (a resolution: with the same Idempotency-Key)",
                "an internal error occurred"),
        WEBHOOKS("the event store is unavailable; redeliver later", null);

        private final String storeUnavailable;
        private final String internal;

        Api(String storeUnavailable, String internal) {
            this.storeUnavailable = storeUnavailable;
            this.internal = internal;
        }
    }

    private final HttpResponses responses;
    private final OncepayConfig config;

    public ProblemMapping(HttpResponses responses, OncepayConfig config) {
        this.responses = responses;
        this.config = config;
    }

    /** @throws RuntimeException {@code e} itself: a webhook's unexpected failure */
    public HttpApiResponse problemFor(RuntimeException e, Api api) {
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
        if (e instanceof OrderRefusedException refused) {
            return orderRefused(refused);
        }
        if (e instanceof OrderHeldException held) {
            return responses.problem(held.paid() ? ProblemType.ORDER_ALREADY_PAID : ProblemType.ORDER_IN_PROGRESS,
                    e.getMessage(), Map.of("paymentId", held.holderId()),
                    Map.of("Location", AdminHttp.COLLECTION + "/" + held.holderId()));
        }
        if (e instanceof RefundExceedsChargeException exceeds) {
            return responses.problem(ProblemType.REFUND_EXCEEDS_CHARGE, e.getMessage(),
                    Map.of("paymentId", exceeds.paymentId(), "amountRefundable", exceeds.amountRefundable()), Map.of());
        }
        if (e instanceof PaymentNotRefundableException notRefundable) {
            return responses.problem(ProblemType.PAYMENT_NOT_REFUNDABLE, e.getMessage(),
                    Map.of("paymentId", notRefundable.paymentId()), Map.of());
        }
        if (e instanceof PaymentNotFoundException) {
            return responses.problem(ProblemType.NOT_FOUND, "no such payment");
        }
        if (e instanceof FingerprintMismatchException) {
            return responses.problem(ProblemType.KEY_REUSED, e.getMessage());
        }
        if (e instanceof ProviderUnavailableException unavailable) {
            return providerUnavailable(unavailable, api);
        }
        if (e instanceof ResolutionNotAllowedException notAllowed) {
            return responses.problem(ProblemType.RESOLUTION_NOT_ALLOWED, e.getMessage(),
                    Map.of("paymentStatus", notAllowed.status().name().toLowerCase(Locale.ROOT)), Map.of());
        }
        if (e instanceof ProviderContradictsException contradicts) {
            List<Map<String, Object>> said = contradicts.charges().stream().map(c -> {
                Map<String, Object> charge = new LinkedHashMap<>();
                charge.put("id", c.id());
                charge.put("status", c.providerStatus());
                return charge;
            }).toList();
            return responses.problem(ProblemType.PROVIDER_CONTRADICTS, e.getMessage(), Map.of("provider", said),
                    Map.of());
        }
        if (e instanceof ChargeMismatchException mismatch) {
            return responses.problem(ProblemType.CHARGE_MISMATCH, e.getMessage(),
                    Map.of("field", mismatch.field().apiName()), Map.of());
        }
        if (e instanceof NoChargeUnprovenException unproven) {
            return responses.problem(ProblemType.NO_CHARGE_UNPROVEN, e.getMessage(),
                    Map.of("provenAt", unproven.provenAt().toString()), Map.of());
        }
        if (e instanceof InsufficientFundsException insufficient) {
            return responses.problem(ProblemType.INSUFFICIENT_FUNDS, e.getMessage(),
                    WalletViews.refusal(insufficient.refused()),
                    insufficient.replayed() ? Map.of("Idempotent-Replayed", "true") : Map.of());
        }
        if (e instanceof CurrencyMismatchException mismatch) {
            Map<String, Object> extensions = new LinkedHashMap<>();
            extensions.put("walletId", mismatch.walletId());
            extensions.put("currency", mismatch.walletCurrency());
            return responses.problem(ProblemType.CURRENCY_MISMATCH, e.getMessage(), extensions, Map.of());
        }
        if (e instanceof EntriesNotListedException) {
            return responses.problem(ProblemType.STORE_UNAVAILABLE, e.getMessage(), Map.of(),
                    HttpResponses.retryAfter(config.charge().inFlightRetryAfter()));
        }
        if (e instanceof UnknownProviderException) {
            return responses.problem(ProblemType.NOT_FOUND, e.getMessage());
        }
        if (e instanceof InvalidSignatureException) {
            return responses.problem(ProblemType.INVALID_SIGNATURE, e.getMessage());
        }
        if (e instanceof MalformedEventException malformed) {
            return responses.invalid(new InvalidRequestException(malformed.field(), malformed.reason()));
        }
        if (e instanceof QueueUnavailableException) {
            LOG.warnf("charge queue unavailable: %s", e.getMessage());
            return responses.problem(ProblemType.QUEUE_UNAVAILABLE, "the charge could not be queued; nothing was"
                    + " stored and nothing was charged: retry with the same Idempotency-Key", Map.of(),
                    HttpResponses.retryAfter(config.charge().unavailableRetryAfter()));
        }
        if (e instanceof SdkException) {
            if (api != Api.WEBHOOKS) {
                LOG.warnf("store unavailable: %s: %s", e.getClass().getSimpleName(), e.getMessage());
            }
            return responses.problem(ProblemType.STORE_UNAVAILABLE, api.storeUnavailable, Map.of(),
                    HttpResponses.retryAfter(api == Api.WEBHOOKS ? WEBHOOK_STORE_RETRY_AFTER
                            : config.charge().unavailableRetryAfter()));
        }
        if (api == Api.WEBHOOKS) {
            throw e;
        }
        // State is safe whatever failed: a held key is recovered by a retry after its lease.
        LOG.errorf("unexpected %s: %s", e.getClass().getName(), e.getMessage());
        return responses.problem(ProblemType.INTERNAL, api.internal);
    }

    /** The order's bound payment, to follow instead of paying again: its id and its {@code Location}. */
    private HttpApiResponse orderRefused(OrderRefusedException e) {
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("paymentId", e.boundPaymentId());
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Location", PaymentsHttp.COLLECTION + "/" + e.boundPaymentId());
        ProblemType type = ProblemType.ORDER_ALREADY_PAID;
        if (e instanceof OrderInProgressException live) {
            headers.putAll(HttpResponses.retryAfter(live.retryAfter()));
            type = ProblemType.ORDER_IN_PROGRESS;
        } else if (e instanceof OrderMismatchException mismatch) {
            extensions.put("field", mismatch.field().apiName());
            type = ProblemType.ORDER_MISMATCH;
        }
        return responses.problem(type, e.getMessage(), extensions, headers);
    }

    /** A payment says it charged nothing and names the cause; the operator API passes on what the provider call said. */
    private HttpApiResponse providerUnavailable(ProviderUnavailableException e, Api api) {
        if (api == Api.REFUNDS) {
            return responses.problem(e.refusal() == ProviderRefusal.AT_CAPACITY ? ProblemType.PROVIDER_AT_CAPACITY
                    : ProblemType.PROVIDER_UNAVAILABLE, "the payment provider is unavailable (" + e.getMessage()
                            + ") and nothing was refunded; retry with the same Idempotency-Key",
                    Map.of(), HttpResponses.retryAfter(e.retryAfter()));
        }
        if (api != Api.PAYMENTS) {
            return responses.problem(ProblemType.PROVIDER_UNAVAILABLE, e.getMessage(), Map.of(),
                    HttpResponses.retryAfter(e.retryAfter()));
        }
        return responses.problem(e.refusal() == ProviderRefusal.AT_CAPACITY ? ProblemType.PROVIDER_AT_CAPACITY
                : ProblemType.PROVIDER_UNAVAILABLE,
                "the payment provider is unavailable (" + e.getMessage()
                        + ") and nothing was charged; retry with the same Idempotency-Key",
                Map.of(), HttpResponses.retryAfter(e.retryAfter()));
    }
}
