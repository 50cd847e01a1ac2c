package dev.oncepay.api;

import dev.oncepay.charge.ChargeAnswer;
import dev.oncepay.charge.ChargeCommand;
import dev.oncepay.charge.ChargeRequest;
import dev.oncepay.charge.ChargeUseCase;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.RequestFingerprint;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.charge.ChargeUseCase.RefundedPayment;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * {@code POST /payments} and {@code GET /payments/{id}}: API Gateway events in, responses out; a
 * payment's refunds ({@code /payments/{id}/refunds…}) go to {@link RefundsHttp}.
 */
@ApplicationScoped
public class PaymentsHttp {
    private static final Logger LOG = Logger.getLogger(PaymentsHttp.class);
    static final String COLLECTION = "/payments";

    private final ChargeUseCase charges;
    private final TenantResolver tenants;
    private final HttpResponses responses;
    private final OncepayConfig config;
    private final ProblemMapping problems;
    private final RefundsHttp refunds;

    public PaymentsHttp(ChargeUseCase charges, TenantResolver tenants, HttpResponses responses, OncepayConfig config,
            ProblemMapping problems, RefundsHttp refunds) {
        this.refunds = refunds;
        this.charges = charges;
        this.tenants = tenants;
        this.responses = responses;
        this.config = config;
        this.problems = problems;
    }

    public HttpApiResponse handle(HttpApiEvent event) {
        try {
            String method = event.method();
            String path = event.path();
            if (path != null && path.equals(COLLECTION)) {
                return "POST".equals(method) ? create(event) : responses.methodNotAllowed("POST");
            }
            if (path != null && path.startsWith(COLLECTION + "/")
                    && RefundsHttp.isRefundPath(path.substring(COLLECTION.length() + 1))) {
                return refunds.handle(event, path.substring(COLLECTION.length() + 1));
            }
            if (path != null && path.startsWith(COLLECTION + "/")) {
                return "GET".equals(method) ? show(event, path.substring(COLLECTION.length() + 1))
                        : responses.methodNotAllowed("GET");
            }
            return responses.problem(ProblemType.NOT_FOUND, "no such route");
        } catch (RuntimeException e) {
            // The store failed before anything reached the provider (the use case answers store
            // failures after the provider call itself): nothing was charged.
            return problems.problemFor(e, ProblemMapping.Api.PAYMENTS);
        }
    }

    private HttpApiResponse create(HttpApiEvent event) {
        String tenant = tenants.tenantOf(event);
        String key = IdempotencyKeyHeader.of(event);
        ChargeRequest request = ChargeRequest.parse(event.jsonBody());
        RequestFingerprint fingerprint = RequestFingerprint.of("POST", COLLECTION, request.canonicalJson());
        ChargeAnswer answer = charges.charge(new ChargeCommand(new IdempotencyKey(tenant, key), fingerprint, request,
                PreferHeader.respondAsync(event)));
        return render(answer);
    }

    private HttpApiResponse show(HttpApiEvent event, String id) {
        String tenant = tenants.tenantOf(event);
        return (Payment.isWellFormedId(id) ? charges.payment(tenant, id) : Optional.<RefundedPayment>empty())
                .map(found -> {
                    Payment p = found.payment();
                    Map<String, Object> view = PaymentView.withOrder(p, charges.orderOf(p));
                    RefundView.addTo(view, p, found.refunds());
                    return responses.json(200, view, Map.of());
                })
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such payment"));
    }

    /** The answer is derived from the payment alone, so a replay renders the very same bytes. */
    private HttpApiResponse render(ChargeAnswer answer) {
        Payment p = answer.payment();
        Map<String, String> headers = new LinkedHashMap<>();
        if (answer.replayed()) {
            headers.put("Idempotent-Replayed", "true");
        }
        if (answer.queued() && p.status() == PaymentStatus.PENDING) {
            headers.put(PreferHeader.APPLIED, PreferHeader.RESPOND_ASYNC);
        }
        LOG.debugf("payment %s answered %s replayed=%s", p.id(), p.status(), answer.replayed());
        return switch (p.status()) {
            case SUCCEEDED -> responses.json(201, PaymentView.of(p), location(p, headers));
            case FAILED -> {
                // Nothing charged is not a decline: no decline code, and a problem type of its own.
                boolean nothingCharged = p.nothingCharged();
                Map<String, Object> extensions = new LinkedHashMap<>();
                extensions.put("paymentId", p.id());
                if (!nothingCharged) {
                    extensions.put("declineCode", p.declineCode());
                }
                extensions.put("payment", PaymentView.of(p));
                if (nothingCharged) {
                    yield responses.problem(ProblemType.PAYMENT_NOT_CHARGED, "nothing was charged: the provider"
                            + " never received this payment's charge (the card was not declined); paying again"
                            + " under a new Idempotency-Key cannot charge this payment twice", extensions, headers);
                }
                yield p.resolvedFailed()
                        ? responses.problem(ProblemType.PAYMENT_RESOLVED_FAILED, "an operator resolved the payment as"
                                + " failed; the provider did not decline it and has not proven that nothing was"
                                + " charged: ask the operator before paying this order again", extensions, headers)
                        : responses.problem(ProblemType.PAYMENT_DECLINED, "the provider declined the payment",
                                extensions, headers);
            }
            case PENDING, UNKNOWN -> {
                headers.putAll(HttpResponses.retryAfter(config.charge().unknownRetryAfter()));
                yield responses.json(202, PaymentView.of(p), location(p, headers));
            }
            case NEEDS_REVIEW -> responses.json(200, PaymentView.of(p), location(p, headers));
        };
    }

    private static Map<String, String> location(Payment p, Map<String, String> headers) {
        headers.put("Location", COLLECTION + "/" + p.id());
        return headers;
    }
}
