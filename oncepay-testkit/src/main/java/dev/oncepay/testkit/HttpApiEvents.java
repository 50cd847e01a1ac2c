package dev.oncepay.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

/**
 * Real API Gateway HTTP API (2.0) event JSON, from a captured-shape fixture, with the parts a
 * test varies: method, path, headers, body, the authorizer's tenant claim.
 */
public final class HttpApiEvents {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String WALLETS = "/wallets/";
    private final ObjectNode event;

    private HttpApiEvents(ObjectNode event) {
        this.event = event;
    }

    public static HttpApiEvents request(String method, String path) {
        try (InputStream in = HttpApiEvents.class.getResourceAsStream("/events/http-api-v2.json")) {
            ObjectNode event = (ObjectNode) JSON.readTree(in);
            HttpApiEvents e = new HttpApiEvents(event);
            String[] segments = path.split("/");
            boolean refunds = path.startsWith("/payments/") && segments.length >= 4 && segments[3].equals("refunds");
            String route = refunds ? (segments.length == 4 ? "/payments/{id}/refunds" : "/payments/{id}/refunds/{refundId}")
                    : path.startsWith("/payments/") ? "/payments/{id}"
                    : path.startsWith(WALLETS) ? WALLETS + "{walletId}" + path.substring(WALLETS.length()).replaceFirst("^[^/]*", "")
                    : path;
            event.put("routeKey", method + " " + route);
            event.put("rawPath", path);
            ObjectNode context = (ObjectNode) event.get("requestContext");
            context.put("routeKey", method + " " + route);
            context.put("requestId", UUID.randomUUID().toString());
            ((ObjectNode) context.get("http")).put("method", method).put("path", path);
            if (refunds) {
                ObjectNode parameters = (ObjectNode) event.get("pathParameters");
                parameters.put("id", segments[2]);
                if (segments.length > 4) {
                    parameters.put("refundId", segments[4]);
                }
            } else if (path.startsWith("/payments/")) {
                ((ObjectNode) event.get("pathParameters")).put("id", path.substring("/payments/".length()));
            }
            if (path.startsWith(WALLETS)) {
                ObjectNode parameters = (ObjectNode) event.get("pathParameters");
                parameters.removeAll();
                parameters.put("walletId", path.substring(WALLETS.length()).split("/", 2)[0]);
            }
            return e;
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    public static HttpApiEvents postPayment(String tenant, String key, String body) {
        HttpApiEvents e = request("POST", "/payments").tenant(tenant).body(body);
        return key == null ? e : e.header("idempotency-key", key);
    }

    /** {@code POST /wallets/{walletId}/credits} or {@code …/debits} ({@code operation}); no key header if {@code key} is null. */
    public static HttpApiEvents postWallet(String tenant, String walletId, String operation, String key, String body) {
        HttpApiEvents e = request("POST", WALLETS + walletId + "/" + operation).tenant(tenant).body(body);
        return key == null ? e : e.header("idempotency-key", key);
    }

    /** {@code GET /wallets/{walletId}}, with {@code query} (may be empty) as the raw query string. */
    public static HttpApiEvents getWallet(String tenant, String walletId, String query) {
        HttpApiEvents e = request("GET", WALLETS + walletId).tenant(tenant);
        e.event.put("rawQueryString", query);
        return e;
    }

    /** {@code POST /payments/{paymentId}/refunds}; no key header if {@code key} is null. */
    public static HttpApiEvents postRefund(String tenant, String paymentId, String key, String body) {
        HttpApiEvents e = request("POST", "/payments/" + paymentId + "/refunds").tenant(tenant).body(body);
        return key == null ? e : e.header("idempotency-key", key);
    }

    public static HttpApiEvents getRefund(String tenant, String paymentId, String refundId) {
        return request("GET", "/payments/" + paymentId + "/refunds/" + refundId).tenant(tenant);
    }

    public static HttpApiEvents getPayment(String tenant, String id) {
        return request("GET", "/payments/" + id).tenant(tenant);
    }

    /**
     * A request to the operator API ({@code pathAndQuery} may carry a query string), without any
     * authorizer context: give it an operator with {@link #operator} or {@link #iamOperator}, or a
     * merchant's token with {@link #tenant}.
     */
    public static HttpApiEvents admin(String method, String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        HttpApiEvents e = request(method, path);
        String route = path.matches("/admin/payments/[^/]+/resolve") ? "/admin/payments/{id}/resolve"
                : path.matches("/admin/payments/[^/]+/deliveries") ? "/admin/payments/{id}/deliveries"
                : path.matches("/admin/endpoints/[^/]+/[^/]+/deliveries") ? "/admin/endpoints/{tenant}/{endpoint}/deliveries"
                : path.matches("/admin/endpoints/[^/]+/[^/]+/redeliver") ? "/admin/endpoints/{tenant}/{endpoint}/redeliver"
                : path.matches("/admin/events/[^/]+/redeliver") ? "/admin/events/{eventId}/redeliver"
                : path.startsWith("/admin/payments/") ? "/admin/payments/{id}" : path;
        e.event.put("routeKey", method + " " + route);
        ObjectNode context = (ObjectNode) e.event.get("requestContext");
        context.put("routeKey", method + " " + route);
        context.remove("authorizer");
        e.event.put("rawQueryString", q < 0 ? "" : pathAndQuery.substring(q + 1));
        ObjectNode parameters = (ObjectNode) e.event.get("pathParameters");
        String[] segments = path.split("/");
        if (route.startsWith("/admin/payments/{id}")) {
            parameters.put("id", segments[3]);
        } else if (route.startsWith("/admin/endpoints/")) {
            parameters.put("tenant", segments[3]).put("endpoint", segments[4]);
        } else if (route.startsWith("/admin/events/")) {
            parameters.put("eventId", segments[3]);
        }
        return e;
    }

    /** The local run's and the tests' stand-in for IAM authorization: the trusted {@code X-Operator-Id} header. */
    public HttpApiEvents operator(String operatorId) {
        return header("x-operator-id", operatorId);
    }

    /** The context API Gateway passes for a route with IAM authorization, signed by {@code userArn}. */
    public HttpApiEvents iamOperator(String userArn) {
        ObjectNode iam = ((ObjectNode) event.get("requestContext")).putObject("authorizer").putObject("iam");
        iam.put("accessKey", "ASIA0000000000EXAMPLE").put("accountId", "123456789012")
                .put("callerId", "AROA0000000000EXAMPLE:on-call").putNull("cognitoIdentity")
                .put("principalOrgId", "o-example").put("userArn", userArn).put("userId", "AROA0000000000EXAMPLE:on-call");
        return this;
    }

    public HttpApiEvents header(String name, String value) {
        ((ObjectNode) event.get("headers")).put(name, value);
        return this;
    }

    public HttpApiEvents withoutHeader(String name) {
        ((ObjectNode) event.get("headers")).remove(name);
        return this;
    }

    public HttpApiEvents body(String body) {
        event.put("body", body);
        event.put("isBase64Encoded", false);
        ((ObjectNode) event.get("headers")).put("content-length",
                Integer.toString(body.getBytes(StandardCharsets.UTF_8).length));
        return this;
    }

    public HttpApiEvents base64Body(byte[] raw) {
        event.put("body", Base64.getEncoder().encodeToString(raw));
        event.put("isBase64Encoded", true);
        return this;
    }

    /** A merchant's JWT authorizer context; {@code null} removes the authorizer context entirely (an unauthenticated request). */
    public HttpApiEvents tenant(String tenant) {
        ObjectNode context = (ObjectNode) event.get("requestContext");
        if (tenant == null) {
            context.remove("authorizer");
        } else {
            if (!context.has("authorizer")) {
                ObjectNode jwt = context.putObject("authorizer").putObject("jwt");
                jwt.putObject("claims").put("aud", "oncepay-api").put("iss", "https://auth.example.com/");
                jwt.putArray("scopes").add("payments:write");
            }
            ((ObjectNode) context.at("/authorizer/jwt/claims")).put("tenant_id", tenant)
                    .put("sub", "client-credentials|" + tenant);
        }
        return this;
    }

    public String json() {
        return event.toString();
    }

    /** Whether {@code bytes} are UTF-8 text; a gateway passes any other body base64-encoded, never repaired. */
    public static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException notText) {
            return false;
        }
    }
}
