package dev.oncepay.api;

import dev.oncepay.admin.AdminUseCase;
import dev.oncepay.admin.AttentionList;
import dev.oncepay.admin.EventDeliveries;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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
    private static final String DELIVERIES = "/deliveries";
    private static final String REDELIVER = "/redeliver";
    static final String ENDPOINTS = "/admin/endpoints/";
    static final String EVENTS = "/admin/events/";
    private static final Set<String> DELIVERY_PARAMETERS = Set.of("since", "limit");
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
    private final EventDeliveries deliveries;

    public AdminHttp(AdminUseCase admin, OperatorResolver operators, HttpResponses responses, ProblemMapping problems,
            RefundUseCase refunds, EventDeliveries deliveries) {
        this.refunds = refunds;
        this.deliveries = deliveries;
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
                if (rest.endsWith(DELIVERIES)) {
                    String id = rest.substring(0, rest.length() - DELIVERIES.length());
                    return "GET".equals(method) ? paymentDeliveries(id) : responses.methodNotAllowed("GET");
                }
                if (rest.endsWith(RESOLVE)) {
                    String id = rest.substring(0, rest.length() - RESOLVE.length());
                    return "POST".equals(method) ? resolve(event, operator, id) : responses.methodNotAllowed("POST");
                }
                return "GET".equals(method) ? show(rest) : responses.methodNotAllowed("GET");
            }
            if (path != null && path.startsWith(ENDPOINTS)) {
                String[] parts = path.substring(ENDPOINTS.length()).split("/", -1);
                if (parts.length == 3 && ("/" + parts[2]).equals(DELIVERIES)) {
                    return "GET".equals(method) ? endpointDeliveries(event, decoded(parts[0]), decoded(parts[1]))
                            : responses.methodNotAllowed("GET");
                }
                if (parts.length == 3 && ("/" + parts[2]).equals(REDELIVER)) {
                    return "POST".equals(method) ? redeliverSince(event, operator, decoded(parts[0]), decoded(parts[1]))
                            : responses.methodNotAllowed("POST");
                }
            }
            if (path != null && path.startsWith(EVENTS) && path.endsWith(REDELIVER)) {
                String eventId = path.substring(EVENTS.length(), path.length() - REDELIVER.length());
                return "POST".equals(method) ? redeliverEvent(event, operator, eventId) : responses.methodNotAllowed("POST");
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

    /** The payment's and its refunds' events at each endpoint that wants them. */
    private HttpApiResponse paymentDeliveries(String id) {
        return (Payment.isWellFormedId(id) ? deliveries.ofPayment(id) : Optional.<List<EventDeliveries.DeliveryLine>>empty())
                .map(lines -> responses.json(200, Map.of("deliveries", lines.stream().map(AdminViews::delivery).toList()),
                        Map.<String, String>of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such payment"));
    }

    private HttpApiResponse endpointDeliveries(HttpApiEvent event, String tenant, String endpoint) {
        Map<String, String> query = event.query(DELIVERY_PARAMETERS);
        Instant since = instant("since", query.getOrDefault("since", Instant.EPOCH.toString()));
        int limit = HttpApiEvent.limit(query, DEFAULT_LIMIT, MAX_LIMIT);
        return deliveries.ofEndpoint(tenant, endpoint, since, limit)
                .map(records -> responses.json(200, Map.of("deliveries", records.stream().map(AdminViews::delivery).toList()),
                        Map.<String, String>of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "tenant " + tenant + " has no endpoint " + endpoint));
    }

    private HttpApiResponse redeliverEvent(HttpApiEvent event, String operator, String eventId) {
        String key = IdempotencyKeyHeader.of(event);
        Optional<String> endpoint = Optional.empty();
        byte[] body = event.jsonBody();
        if (body != null && body.length > 0) {
            JsonNode json = RedeliveryRequest.object(body);
            JsonNode named = json.get("endpoint");
            if (named != null && (!named.isTextual() || named.textValue().isEmpty())) {
                throw new InvalidRequestException("endpoint", "must be an endpoint id");
            }
            RedeliveryRequest.onlyFields(json, Set.of("endpoint"));
            endpoint = Optional.ofNullable(named).map(JsonNode::textValue);
        }
        return deliveries.redeliverEvent(operator, key, eventId, endpoint)
                .map(done -> redelivered(done))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such event (or endpoint)"));
    }

    private HttpApiResponse redeliverSince(HttpApiEvent event, String operator, String tenant, String endpoint) {
        String key = IdempotencyKeyHeader.of(event);
        JsonNode json = RedeliveryRequest.object(event.jsonBody());
        RedeliveryRequest.onlyFields(json, Set.of("since"));
        JsonNode since = json.get("since");
        if (since == null || !since.isTextual()) {
            throw new InvalidRequestException("since", "is required: an ISO-8601 instant, e.g. 2026-12-01T00:00:00Z");
        }
        Instant from = instant("since", since.textValue());
        return deliveries.redeliverSince(operator, key, tenant, endpoint, from)
                .map(done -> redelivered(done))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "tenant " + tenant + " has no endpoint " + endpoint));
    }

    private HttpApiResponse redelivered(EventDeliveries.Redelivery done) {
        return responses.json(202, AdminViews.redelivery(done),
                done.replayed() ? Map.of("Idempotent-Replayed", "true") : Map.<String, String>of());
    }

    private static Instant instant(String field, String value) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException notAnInstant) {
            throw new InvalidRequestException(field, "must be an ISO-8601 instant, e.g. 2026-12-01T00:00:00Z");
        }
    }

    private static String decoded(String segment) {
        return URLDecoder.decode(segment, StandardCharsets.UTF_8);
    }
}
