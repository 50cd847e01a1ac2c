package dev.oncepay.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.LoggedPayment;
import dev.oncepay.contract.Metrics;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.payment.Payment;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

/**
 * What each invocation of a function leaves behind: one INFO line (structured: its fields travel
 * as MDC entries, which the JSON log format writes as members of the line's {@code mdc} object)
 * and, for an HTTP answer, the {@link Metrics#ANSWERS} and {@link Metrics#REPLAYS} counters.
 *
 * <p>Never logged: the raw {@code Idempotency-Key} (only {@code keyHash}: the first 16 hex digits
 * of SHA-256 over tenant, NUL, key — the prefix of the key item's storage id, so a line leads to
 * its item), bodies, headers, signatures or secrets.
 */
@ApplicationScoped
public class RequestLog {
    /** The logger's name is what operators' log queries filter on (operations.md), so it keeps its published name. */
    private static final Logger LOG = Logger.getLogger("dev.oncepay.http.RequestLog");
    /** The Lambda runtime's MDC entry for the invocation's request id (Quarkus' poll loop sets it). */
    static final String LAMBDA_REQUEST_ID = "AWSRequestId";
    /** What every problem type URI starts with; the rest is the type's short name ({@code store-unavailable}). */
    private static final String PROBLEM_TYPE_BASE = ProblemType.INTERNAL.uri()
            .substring(0, ProblemType.INTERNAL.uri().lastIndexOf('/') + 1);
    private static final String WALLETS = "/wallets/";

    private final EmbeddedMetrics metrics;
    private final TenantResolver tenants;
    private final ObjectMapper json;

    public RequestLog(EmbeddedMetrics metrics, TenantResolver tenants, ObjectMapper json) {
        this.metrics = metrics;
        this.tenants = tenants;
        this.json = json;
    }

    /** {@code handler}'s answer to {@code event}, counted and logged as {@code function}'s. */
    public HttpApiResponse answer(String function, HttpApiEvent event, Function<HttpApiEvent, HttpApiResponse> handler) {
        long start = System.nanoTime();
        LoggedPayment.clear();
        HttpApiResponse response = null;
        Throwable failure = null;
        try {
            response = handler.apply(event);
            return response;
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            try {
                record(function, event, response, failure, start);
            } catch (RuntimeException e) {
                // The answer is what matters; a line that cannot be written must not replace it.
                LOG.warnf("request log failed: %s", e.getClass().getName());
            } finally {
                LoggedPayment.clear();
            }
        }
    }

    /** {@code work}'s result, logged as one line of {@code function} (a scheduled invocation: a sweep). */
    public <T> T run(String function, Supplier<T> work) {
        long start = System.nanoTime();
        T result = null;
        Throwable failure = null;
        try {
            result = work.get();
            return result;
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("function", function);
            fields.put("requestId", MDC.get(LAMBDA_REQUEST_ID));
            fields.put("latencyMs", millisSince(start));
            if (failure != null) {
                fields.put("error", failure.getClass().getName());
            }
            write(fields, function + (failure == null ? " done: " + result : " failed"));
        }
    }

    private void record(String function, HttpApiEvent event, HttpApiResponse response, Throwable failure,
            long start) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("function", function);
        fields.put("requestId", event.requestContext() == null ? null : event.requestContext().requestId());
        String tenant = tenantOf(event);
        fields.put("tenant", tenant);
        JsonNode body = response == null ? null : bodyOf(response);
        fields.put("paymentId", paymentIdOf(event, body));
        String key = event.header("Idempotency-Key");
        if (key != null) {
            // The stored key's own hash (storage id "key#<sha256 hex>"), cut to 16 hex digits.
            String scope = event.path() != null && event.path().startsWith("/admin/") ? IdempotencyKey.OPERATOR_SCOPE
                    : tenant == null ? "" : tenant;
            fields.put("keyHash", new IdempotencyKey(scope, key).storageId().substring(4, 20));
        }
        String route = routeOf(event);
        fields.put("method", event.method());
        fields.put("route", route);
        String request = function + " " + event.method() + " " + route;
        if (failure != null) {
            // The invocation fails: API Gateway answers 5xx itself, and Lambda counts an error.
            fields.put("error", failure.getClass().getName());
            fields.put("latencyMs", millisSince(start));
            write(fields, request + " failed");
            return;
        }
        String problemType = problemTypeOf(response, body);
        boolean replayed = "true".equals(response.header("Idempotent-Replayed"));
        fields.put("status", response.statusCode());
        fields.put("problemType", problemType);
        fields.put("replayed", replayed);
        fields.put("latencyMs", millisSince(start));
        metrics.count(Metrics.ANSWERS, Map.of(Metrics.DIM_FUNCTION, function,
                Metrics.DIM_STATUS, statusDimension(response.statusCode(), problemType)));
        if (replayed) {
            metrics.count(Metrics.REPLAYS, Map.of(Metrics.DIM_FUNCTION, function));
        }
        write(fields, request + " " + response.statusCode());
    }

    /**
     * The {@code Status} dimension: the status code, and for a server-side problem its type too
     * ({@code 503-provider-unavailable}, {@code 503-store-unavailable}, {@code 503-provider-at-capacity},
     * {@code 500-internal}), since one 5xx status has several causes that call for different fixes.
     */
    static String statusDimension(int status, String problemType) {
        return status >= 500 && problemType != null ? status + "-" + problemType : Integer.toString(status);
    }

    private static void write(Map<String, Object> fields, String message) {
        fields.values().removeIf(v -> v == null);
        for (Map.Entry<String, Object> f : fields.entrySet()) {
            MDC.put(f.getKey(), f.getValue().toString());
        }
        try {
            LOG.info(message);
        } finally {
            fields.keySet().forEach(MDC::remove);
        }
    }

    private String tenantOf(HttpApiEvent event) {
        try {
            return tenants.tenantOf(event);
        } catch (UnauthenticatedException none) {
            return null; // the operator API and webhooks have none; a refused request says so in its status
        }
    }

    private JsonNode bodyOf(HttpApiResponse response) {
        String type = response.header("Content-Type");
        if (response.body() == null || type == null || !type.contains("json")) {
            return null;
        }
        try {
            return json.readTree(response.body());
        } catch (IOException notJson) {
            return null;
        }
    }

    /** The payment named by the handler, else by the path ({@code /payments/{id}}, {@code /admin/payments/{id}/…}), else by the answer. */
    private static String paymentIdOf(HttpApiEvent event, JsonNode body) {
        if (Payment.isWellFormedId(LoggedPayment.current())) {
            return LoggedPayment.current();
        }
        String path = event.path();
        if (path != null) {
            for (String segment : path.split("/")) {
                if (Payment.isWellFormedId(segment)) {
                    return segment;
                }
            }
        }
        if (body != null) {
            for (String pointer : new String[] {"/id", "/paymentId", "/payment/id"}) {
                String id = body.at(pointer).asText(null);
                if (Payment.isWellFormedId(id)) {
                    return id;
                }
            }
        }
        return null;
    }

    /**
     * The route template ({@code /payments/{id}}) without its method; the path where the route is a
     * catch-all, with a wallet's id replaced by its placeholder (it is the merchant's, never logged).
     */
    private static String routeOf(HttpApiEvent event) {
        String routeKey = event.routeKey() != null ? event.routeKey()
                : event.requestContext() == null ? null : event.requestContext().routeKey();
        if (routeKey == null || routeKey.startsWith("$")) {
            String path = event.path();
            return path != null && path.startsWith(WALLETS) ? WALLETS + "{walletId}"
                    + path.substring(WALLETS.length()).replaceFirst("^[^/]*", "") : path;
        }
        int space = routeKey.indexOf(' ');
        return space < 0 ? routeKey : routeKey.substring(space + 1);
    }

    private static String problemTypeOf(HttpApiResponse response, JsonNode body) {
        String type = response.header("Content-Type");
        if (body == null || type == null || !type.startsWith(HttpResponses.PROBLEM_JSON)) {
            return null;
        }
        String uri = body.path("type").asText("");
        return uri.startsWith(PROBLEM_TYPE_BASE) ? uri.substring(PROBLEM_TYPE_BASE.length()) : null;
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
