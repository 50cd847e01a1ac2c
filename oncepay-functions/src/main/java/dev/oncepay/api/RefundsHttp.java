package dev.oncepay.api;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.RequestFingerprint;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.Refund;
import dev.oncepay.refund.RefundAnswer;
import dev.oncepay.refund.RefundCommand;
import dev.oncepay.refund.RefundRequest;
import dev.oncepay.refund.RefundUseCase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code POST /payments/{id}/refunds} and {@code GET /payments/{id}/refunds/{refundId}}. */
@ApplicationScoped
public class RefundsHttp {
    static final String SEGMENT = "/refunds";

    private final RefundUseCase refunds;
    private final TenantResolver tenants;
    private final HttpResponses responses;
    private final OncepayConfig config;
    private final ProblemMapping problems;

    public RefundsHttp(RefundUseCase refunds, TenantResolver tenants, HttpResponses responses, OncepayConfig config,
            ProblemMapping problems) {
        this.refunds = refunds;
        this.tenants = tenants;
        this.responses = responses;
        this.config = config;
        this.problems = problems;
    }

    /** Whether {@code rest} (a path after {@code /payments/}) names a payment's refunds. */
    static boolean isRefundPath(String rest) {
        int slash = rest.indexOf('/');
        return slash > 0 && rest.startsWith(SEGMENT, slash);
    }

    /** @param rest the path after {@code /payments/}: {@code {id}/refunds} or {@code {id}/refunds/{refundId}} */
    HttpApiResponse handle(HttpApiEvent event, String rest) {
        try {
            int slash = rest.indexOf('/');
            String paymentId = rest.substring(0, slash);
            String tail = rest.substring(slash + SEGMENT.length());
            if (tail.isEmpty()) {
                return "POST".equals(event.method()) ? create(event, paymentId) : responses.methodNotAllowed("POST");
            }
            if (tail.startsWith("/") && tail.indexOf('/', 1) < 0) {
                return "GET".equals(event.method()) ? show(event, paymentId, tail.substring(1))
                        : responses.methodNotAllowed("GET");
            }
            return responses.problem(ProblemType.NOT_FOUND, "no such route");
        } catch (RuntimeException e) {
            return problems.problemFor(e, ProblemMapping.Api.REFUNDS);
        }
    }

    private HttpApiResponse create(HttpApiEvent event, String paymentId) {
        String tenant = tenants.tenantOf(event);
        String key = IdempotencyKeyHeader.of(event);
        RefundRequest request = RefundRequest.parse(event.jsonBody());
        if (!Payment.isWellFormedId(paymentId)) {
            return responses.problem(ProblemType.NOT_FOUND, "no such payment");
        }
        RequestFingerprint fingerprint = RequestFingerprint.of("POST",
                PaymentsHttp.COLLECTION + "/" + paymentId + SEGMENT, request.canonicalJson());
        return render(refunds.refund(new RefundCommand(new IdempotencyKey(tenant, key), paymentId, fingerprint,
                request)));
    }

    private HttpApiResponse show(HttpApiEvent event, String paymentId, String refundId) {
        String tenant = tenants.tenantOf(event);
        if (!Payment.isWellFormedId(paymentId) || !Refund.isWellFormedId(refundId)) {
            return responses.problem(ProblemType.NOT_FOUND, "no such refund");
        }
        return refunds.refund(tenant, paymentId, refundId)
                .map(r -> responses.json(200, RefundView.of(r.refund()), Map.of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such refund"));
    }

    /** The answer is derived from the refund alone, so a replay renders the very same bytes. */
    private HttpApiResponse render(RefundAnswer answer) {
        Refund r = answer.refund();
        Map<String, String> headers = new LinkedHashMap<>();
        if (answer.replayed()) {
            headers.put("Idempotent-Replayed", "true");
        }
        headers.put("Location", RefundView.location(r));
        return switch (r.status()) {
            case SUCCEEDED -> responses.json(201, RefundView.of(r), headers);
            case FAILED -> {
                Map<String, Object> extensions = new LinkedHashMap<>();
                extensions.put("refundId", r.id());
                extensions.put("failureCode", r.failureCode());
                extensions.put("refund", RefundView.of(r));
                yield responses.problem(ProblemType.REFUND_FAILED, Refund.NOT_SENT.equals(r.failureCode())
                        ? "the refund never reached the provider and nothing was refunded"
                        : "the provider refused the refund and nothing was refunded", extensions, headers);
            }
            case PENDING, UNKNOWN -> {
                headers.putAll(HttpResponses.retryAfter(config.charge().unknownRetryAfter()));
                yield responses.json(202, RefundView.of(r), headers);
            }
            case NEEDS_REVIEW -> responses.json(200, RefundView.of(r), headers);
        };
    }
}
