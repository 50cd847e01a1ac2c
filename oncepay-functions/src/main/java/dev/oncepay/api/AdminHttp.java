package dev.oncepay.api;

import dev.oncepay.admin.AdminUseCase;
import dev.oncepay.admin.AttentionList;
import dev.oncepay.admin.ResolutionRequest;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentHistory;
import dev.oncepay.refund.RefundUseCase;
import dev.oncepay.payment.PaymentStatus;
import jakarta.enterprise.context.ApplicationScoped;
import dev.oncepay.validation.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The operator API ({@code /admin/...}) of the charge function: API Gateway events in, responses
 * out. Every request is an operator's or is refused (403) before anything is read.
 */
@ApplicationScoped
public class AdminHttp {
    public static final String PREFIX = "/admin/";
    static final String COLLECTION = "/admin/payments";
    static final String ORDERS = "/admin/orders";
    private static final Set<String> ORDER_PARAMETERS = Set.of("tenant", "reference");
    private static final String RESOLVE = "/resolve";
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 200;
    private static final Set<String> LIST_PARAMETERS = Set.of("status", "tenant", "limit", "cursor");
    private static final Map<String, PaymentStatus> LISTED = Map.of("needs_review", PaymentStatus.NEEDS_REVIEW,
            "unknown", PaymentStatus.UNKNOWN, "pending", PaymentStatus.PENDING);

    private final AdminUseCase admin;
    private final OperatorResolver operators;
    private final HttpResponses responses;
    private final ProblemMapping problems;
    private final RefundUseCase refunds;

    public AdminHttp(AdminUseCase admin, OperatorResolver operators, HttpResponses responses, ProblemMapping problems,
            RefundUseCase refunds) {
        this.refunds = refunds;
        this.admin = admin;
        this.operators = operators;
        this.responses = responses;
        this.problems = problems;
    }

    public HttpApiResponse handle(HttpApiEvent event) {
        try {
            String operator = operators.operatorOf(event); // first: nothing is read for anyone else
            String method = event.method();
            String path = event.path();
            if (COLLECTION.equals(path)) {
                return "GET".equals(method) ? list(event) : responses.methodNotAllowed("GET");
            }
            if (path != null && path.startsWith(COLLECTION + "/")) {
                String rest = path.substring(COLLECTION.length() + 1);
                if (rest.endsWith(RESOLVE)) {
                    String id = rest.substring(0, rest.length() - RESOLVE.length());
                    return "POST".equals(method) ? resolve(event, operator, id) : responses.methodNotAllowed("POST");
                }
                return "GET".equals(method) ? show(rest) : responses.methodNotAllowed("GET");
            }
            if (ORDERS.equals(path)) {
                return "GET".equals(method) ? order(event) : responses.methodNotAllowed("GET");
            }
            return responses.problem(ProblemType.NOT_FOUND, "no such route");
        } catch (RuntimeException e) {
            return problems.problemFor(e, ProblemMapping.Api.OPERATOR);
        }
    }

    private HttpApiResponse list(HttpApiEvent event) {
        Map<String, String> query = event.query(LIST_PARAMETERS);
        String statusName = query.get("status");
        PaymentStatus status = statusName == null ? null : LISTED.get(statusName);
        if (status == null) {
            throw new InvalidRequestException("status", "is required: needs_review, unknown or pending");
        }
        int limit = HttpApiEvent.limit(query, DEFAULT_LIMIT, MAX_LIMIT);
        String tenant = query.get("tenant");
        if (tenant != null && (tenant.isEmpty() || tenant.length() > 128)) {
            throw new InvalidRequestException("tenant", "must be 1 to 128 characters");
        }
        String cursor = query.get("cursor");
        if (cursor != null && cursor.isEmpty()) {
            throw new InvalidRequestException("cursor", "must not be empty");
        }
        AttentionList page = admin.list(status, tenant, limit, cursor);
        return responses.json(200, AdminViews.page(page.items(), page.nextCursor()), Map.of());
    }

    private HttpApiResponse show(String id) {
        return (Payment.isWellFormedId(id) ? admin.payment(id) : Optional.<PaymentHistory>empty())
                .map(found -> responses.json(200, AdminViews.detail(found, admin.orderOf(found.payment()),
                        refunds.refunds(found.refundIds())), Map.of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such payment"));
    }

    /** A tenant's order and its payments, by the merchant's order reference. */
    private HttpApiResponse order(HttpApiEvent event) {
        Map<String, String> query = event.query(ORDER_PARAMETERS);
        String tenant = query.get("tenant");
        String reference = query.get("reference");
        List<FieldError> errors = new ArrayList<>();
        if (tenant == null || tenant.isEmpty() || tenant.length() > 128) {
            errors.add(new FieldError("tenant", "is required (1 to 128 characters)"));
        }
        if (reference == null || reference.isEmpty() || reference.length() > 128) {
            errors.add(new FieldError("reference", "is required (1 to 128 characters)"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
        return admin.order(tenant, reference)
                .map(found -> responses.json(200, AdminViews.order(tenant, reference, found), Map.of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no payment of tenant " + tenant
                        + " was ever bound to this order (or the tenant does not guard its orders)"));
    }

    private HttpApiResponse resolve(HttpApiEvent event, String operator, String id) {
        if (!Payment.isWellFormedId(id)) {
            return responses.problem(ProblemType.NOT_FOUND, "no such payment");
        }
        String key = IdempotencyKeyHeader.of(event);
        ResolutionRequest request = ResolutionRequest.parse(event.jsonBody());
        return admin.resolve(operator, id, key, request)
                .map(answer -> responses.json(200, AdminViews.detail(answer.resolved(),
                        admin.orderOf(answer.resolved().payment()), refunds.refunds(answer.resolved().refundIds())),
                        answer.replayed() ? Map.of("Idempotent-Replayed", "true") : Map.of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such payment"));
    }
}
