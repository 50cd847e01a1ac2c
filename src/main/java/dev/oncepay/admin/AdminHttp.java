package dev.oncepay.admin;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.ForbiddenException;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.http.HttpResponses;
import dev.oncepay.http.InvalidRequestException;
import dev.oncepay.http.OperatorResolver;
import dev.oncepay.http.ProblemType;
import dev.oncepay.idempotency.FingerprintMismatchException;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentHistory;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.provider.ProviderUnavailableException;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The operator API ({@code /admin/...}) of the charge function: API Gateway events in, responses
 * out. Every request is an operator's or is refused (403) before anything is read.
 */
@ApplicationScoped
public class AdminHttp {
    private static final Logger LOG = Logger.getLogger(AdminHttp.class);
    public static final String PREFIX = "/admin/";
    static final String COLLECTION = "/admin/payments";
    private static final String RESOLVE = "/resolve";
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 200;
    private static final Set<String> LIST_PARAMETERS = Set.of("status", "tenant", "limit", "cursor");
    private static final Map<String, PaymentStatus> LISTED = Map.of("needs_review", PaymentStatus.NEEDS_REVIEW,
            "unknown", PaymentStatus.UNKNOWN, "pending", PaymentStatus.PENDING);

    private final AdminUseCase admin;
    private final OperatorResolver operators;
    private final HttpResponses responses;
    private final OncepayConfig config;

    public AdminHttp(AdminUseCase admin, OperatorResolver operators, HttpResponses responses, OncepayConfig config) {
        this.admin = admin;
        this.operators = operators;
        this.responses = responses;
        this.config = config;
    }

    public HttpApiResponse handle(HttpApiEvent event) {
        try {
            String operator = operators.operatorOf(event); // first: nothing is read for anyone else
            String method = event.method();
            String path = event.path();
            if (COLLECTION.equals(path)) {
                return "GET".equals(method) ? list(event) : methodNotAllowed("GET");
            }
            if (path != null && path.startsWith(COLLECTION + "/")) {
                String rest = path.substring(COLLECTION.length() + 1);
                if (rest.endsWith(RESOLVE)) {
                    String id = rest.substring(0, rest.length() - RESOLVE.length());
                    return "POST".equals(method) ? resolve(event, operator, id) : methodNotAllowed("POST");
                }
                return "GET".equals(method) ? show(rest) : methodNotAllowed("GET");
            }
            return responses.problem(ProblemType.NOT_FOUND, "no such route");
        } catch (ForbiddenException e) {
            return responses.problem(ProblemType.FORBIDDEN, e.getMessage());
        } catch (InvalidRequestException e) {
            return responses.invalid(e);
        } catch (ResolutionNotAllowedException e) {
            return responses.problem(ProblemType.RESOLUTION_NOT_ALLOWED, e.getMessage(),
                    Map.of("paymentStatus", e.status().name().toLowerCase(Locale.ROOT)), Map.of());
        } catch (ProviderContradictsException e) {
            List<Map<String, Object>> said = e.charges().stream().map(c -> {
                Map<String, Object> charge = new LinkedHashMap<>();
                charge.put("id", c.id());
                charge.put("status", c.providerStatus());
                return charge;
            }).toList();
            return responses.problem(ProblemType.PROVIDER_CONTRADICTS, e.getMessage(), Map.of("provider", said),
                    Map.of());
        } catch (RequestInFlightException e) {
            return responses.problem(ProblemType.REQUEST_IN_FLIGHT, e.getMessage(), Map.of(),
                    HttpResponses.retryAfter(e.retryAfter()));
        } catch (FingerprintMismatchException e) {
            return responses.problem(ProblemType.KEY_REUSED, e.getMessage());
        } catch (ProviderUnavailableException e) {
            return responses.problem(ProblemType.PROVIDER_UNAVAILABLE, e.getMessage(), Map.of(),
                    HttpResponses.retryAfter(e.retryAfter()));
        } catch (SdkException e) {
            LOG.warnf("store unavailable: %s: %s", e.getClass().getSimpleName(), e.getMessage());
            return responses.problem(ProblemType.STORE_UNAVAILABLE,
                    "the payment store is unavailable; retry later (a resolution: with the same Idempotency-Key)",
                    Map.of(), HttpResponses.retryAfter(config.charge().unavailableRetryAfter()));
        } catch (RuntimeException e) {
            LOG.errorf("unexpected %s: %s", e.getClass().getName(), e.getMessage());
            return responses.problem(ProblemType.INTERNAL, "an internal error occurred");
        }
    }

    private HttpApiResponse list(HttpApiEvent event) {
        Map<String, String> query = query(event.rawQueryString());
        String statusName = query.get("status");
        PaymentStatus status = statusName == null ? null : LISTED.get(statusName);
        if (status == null) {
            throw new InvalidRequestException("status", "is required: needs_review, unknown or pending");
        }
        int limit = DEFAULT_LIMIT;
        if (query.containsKey("limit")) {
            try {
                limit = Integer.parseInt(query.get("limit"));
            } catch (NumberFormatException notANumber) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new InvalidRequestException("limit", "must be an integer from 1 to " + MAX_LIMIT);
            }
        }
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
                .map(found -> responses.json(200, AdminViews.detail(found), Map.of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such payment"));
    }

    private HttpApiResponse resolve(HttpApiEvent event, String operator, String id) {
        if (!Payment.isWellFormedId(id)) {
            return responses.problem(ProblemType.NOT_FOUND, "no such payment");
        }
        String key = event.header("Idempotency-Key");
        String keyProblem = IdempotencyKey.problemWith(key);
        if (keyProblem != null) {
            throw new InvalidRequestException("Idempotency-Key", keyProblem);
        }
        String contentType = event.header("Content-Type");
        String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!mediaType.equals("application/json")) {
            throw new InvalidRequestException("Content-Type", "must be application/json");
        }
        ResolutionRequest request = ResolutionRequest.parse(event.utf8Body());
        return admin.resolve(operator, id, key, request)
                .map(answer -> responses.json(200, AdminViews.detail(answer.resolved()),
                        answer.replayed() ? Map.of("Idempotent-Replayed", "true") : Map.of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such payment"));
    }

    private HttpApiResponse methodNotAllowed(String allowed) {
        return responses.problem(ProblemType.METHOD_NOT_ALLOWED, "this resource allows " + allowed, Map.of(),
                Map.of("Allow", allowed));
    }

    /** The query string's parameters; each at most once, and only those the listing knows. */
    private static Map<String, String> query(String raw) {
        Map<String, String> parameters = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return parameters;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name;
            String value;
            try {
                name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException badEscape) {
                throw new InvalidRequestException("query", "is not a valid query string");
            }
            if (!LIST_PARAMETERS.contains(name)) {
                throw new InvalidRequestException(name, "is not a parameter of this listing");
            }
            if (parameters.put(name, value) != null) {
                throw new InvalidRequestException(name, "is given more than once");
            }
        }
        return parameters;
    }
}
