package dev.oncepay.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.testkit.HttpApiEvents;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * API Gateway HTTP API, payload format 2.0, both ways: an HTTP request becomes the event JSON a
 * Lambda integration receives, and the function's output becomes the HTTP response, by the rules
 * API Gateway applies (lower-cased and comma-joined headers, cookies apart, base64 for non-text
 * bodies, the 200/application-json default for output without {@code statusCode}, 502 for output
 * it cannot use).
 */
public final class HttpApiV2 {
    public static final String ACCOUNT_ID = "123456789012";
    public static final String API_ID = "local";
    public static final String STAGE = "$default";
    private static final DateTimeFormatter REQUEST_TIME =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ENGLISH).withZone(ZoneOffset.UTC);
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpApiV2() {
    }

    /** An HTTP request as the gateway received it. Header names as sent; several values per name allowed. */
    public record Request(String method, String rawPath, String rawQuery, List<Map.Entry<String, String>> headers,
            byte[] body, String sourceIp, String protocol) {

        public String header(String name) {
            List<String> values = new ArrayList<>();
            for (Map.Entry<String, String> h : headers) {
                if (h.getKey().equalsIgnoreCase(name)) {
                    values.add(h.getValue());
                }
            }
            return values.isEmpty() ? null : String.join(",", values);
        }
    }

    /** A route of the API, e.g. {@code POST /payments/{id}}, and the function it integrates. */
    public record Route(String method, String pathTemplate, String function, boolean authorized) {

        public String routeKey() {
            return method + " " + pathTemplate;
        }

        /** The path parameters if {@code path} matches (each {@code {name}} is one non-empty segment), else null. */
        public Map<String, String> match(String requestMethod, String path) {
            if (!method.equals(requestMethod)) {
                return null;
            }
            String[] template = pathTemplate.substring(1).split("/", -1);
            String[] actual = path.startsWith("/") ? path.substring(1).split("/", -1) : null;
            if (actual == null || template.length != actual.length) {
                return null;
            }
            Map<String, String> params = new LinkedHashMap<>();
            for (int i = 0; i < template.length; i++) {
                String t = template[i];
                if (t.startsWith("{") && t.endsWith("}")) {
                    if (actual[i].isEmpty()) {
                        return null;
                    }
                    params.put(t.substring(1, t.length() - 1), decode(actual[i]));
                } else if (!t.equals(actual[i])) {
                    return null;
                }
            }
            return params;
        }
    }

    /** The API's routes, in the order API Gateway would prefer them (literal before parameter). */
    public static List<Route> oncepayRoutes() {
        return List.of(
                new Route("POST", "/payments", "charge", true),
                new Route("GET", "/payments/{id}", "charge", true),
                new Route("POST", "/payments/{id}/refunds", "charge", true),
                new Route("GET", "/payments/{id}/refunds/{refundId}", "charge", true),
                new Route("POST", "/webhooks/{provider}", "webhook", false),
                new Route("POST", "/wallets/{walletId}/credits", "charge", true),
                new Route("POST", "/wallets/{walletId}/debits", "charge", true),
                new Route("GET", "/wallets/{walletId}", "charge", true),
                // The operator API: IAM authorization on AWS, so no JWT authorizer here either; the
                // charge function trusts the X-Operator-Id header locally (ONCEPAY_OPERATOR_TRUSTED_HEADER).
                new Route("GET", "/admin/payments", "charge", false),
                new Route("GET", "/admin/payments/{id}", "charge", false),
                new Route("POST", "/admin/payments/{id}/resolve", "charge", false),
                new Route("GET", "/admin/orders", "charge", false));
    }

    /** What the gateway sends back: status, headers in order (several {@code set-cookie} possible), body. */
    public record Response(int status, List<Map.Entry<String, String>> headers, byte[] body) {
        public String header(String name) {
            return headers.stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                    .findFirst().orElse(null);
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** API Gateway's own JSON answers: {@code {"message":"..."}}. */
        public static Response message(int status, String message) {
            ObjectNode body = JSON.createObjectNode().put("message", message);
            return new Response(status, List.of(Map.entry("content-type", "application/json")),
                    body.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The function's output cannot be used as a response: API Gateway answers 502. */
    public static final class MalformedResponse extends Exception {
        public MalformedResponse(String message) {
            super(message);
        }
    }

    /**
     * The payload-2.0 event for {@code request} on {@code route}.
     *
     * @param tenant put into {@code requestContext.authorizer.jwt.claims.tenant_id} (a JWT authorizer's
     *        claims), or null for routes without an authorizer
     */
    public static ObjectNode event(Request request, Route route, Map<String, String> pathParameters, String requestId,
            Instant now, String tenant) {
        ObjectNode event = JSON.createObjectNode();
        event.put("version", "2.0");
        event.put("routeKey", route.routeKey());
        event.put("rawPath", request.rawPath());
        event.put("rawQueryString", request.rawQuery() == null ? "" : request.rawQuery());

        Map<String, String> headers = new LinkedHashMap<>();
        List<String> cookies = new ArrayList<>();
        for (Map.Entry<String, String> h : request.headers()) {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            if (name.equals("cookie")) {
                for (String c : h.getValue().split(";")) {
                    if (!c.isBlank()) {
                        cookies.add(c.trim());
                    }
                }
                continue;
            }
            headers.merge(name, h.getValue(), (a, b) -> a + "," + b);
        }
        headers.computeIfAbsent("x-amzn-trace-id", k -> traceHeader(now));
        headers.putIfAbsent("x-forwarded-for", request.sourceIp());
        String hostHeader = headers.getOrDefault("host", "");
        int colon = hostHeader.lastIndexOf(':');
        headers.putIfAbsent("x-forwarded-port", colon >= 0 ? hostHeader.substring(colon + 1) : "80");
        headers.putIfAbsent("x-forwarded-proto", "http");
        if (!cookies.isEmpty()) {
            ArrayNode c = event.putArray("cookies");
            cookies.forEach(c::add);
        }
        ObjectNode h = event.putObject("headers");
        headers.forEach(h::put);

        Map<String, String> query = queryParameters(request.rawQuery());
        if (!query.isEmpty()) {
            ObjectNode q = event.putObject("queryStringParameters");
            query.forEach(q::put);
        }

        ObjectNode context = event.putObject("requestContext");
        context.put("accountId", ACCOUNT_ID);
        context.put("apiId", API_ID);
        if (tenant != null) {
            ObjectNode claims = context.putObject("authorizer").putObject("jwt").putObject("claims");
            claims.put("tenant_id", tenant);
            claims.put("sub", "local|" + tenant);
            claims.put("iss", "local-run (X-Tenant-Id header, no token verified)");
            claims.put("aud", "oncepay-api");
            context.with("authorizer").with("jwt").putNull("scopes");
        }
        String host = headers.getOrDefault("host", "127.0.0.1");
        context.put("domainName", host);
        context.put("domainPrefix", host.contains(".") ? host.substring(0, host.indexOf('.')) : host);
        ObjectNode http = context.putObject("http");
        http.put("method", request.method());
        http.put("path", request.rawPath());
        http.put("protocol", request.protocol());
        http.put("sourceIp", request.sourceIp());
        http.put("userAgent", headers.getOrDefault("user-agent", ""));
        context.put("requestId", requestId);
        context.put("routeKey", route.routeKey());
        context.put("stage", STAGE);
        context.put("time", REQUEST_TIME.format(now));
        context.put("timeEpoch", now.toEpochMilli());

        byte[] body = request.body();
        boolean hasBody = body != null && body.length > 0;
        // Bytes that are not UTF-8 go base64-encoded, as API Gateway does: never repaired into U+FFFD.
        boolean text = isText(headers.get("content-type")) && (!hasBody || HttpApiEvents.isUtf8(body));
        if (hasBody) {
            event.put("body", text ? new String(body, StandardCharsets.UTF_8) : Base64.getEncoder().encodeToString(body));
        }
        if (!pathParameters.isEmpty()) {
            ObjectNode p = event.putObject("pathParameters");
            pathParameters.forEach(p::put);
        }
        event.put("isBase64Encoded", hasBody && !text);
        return event;
    }

    /**
     * API Gateway's reading of a payload-2.0 function output. With {@code statusCode}: that status,
     * {@code headers}, {@code cookies} as {@code set-cookie}, {@code body} (base64-decoded if flagged).
     * Valid JSON without {@code statusCode}: 200, {@code application/json}, the output itself as body.
     */
    public static Response response(byte[] output) throws MalformedResponse {
        JsonNode node;
        try {
            node = JSON.readTree(output);
        } catch (IOException e) {
            throw new MalformedResponse("the function's output is not JSON");
        }
        if (node == null || node.isMissingNode()) {
            throw new MalformedResponse("the function returned nothing");
        }
        if (!node.isObject() || !node.has("statusCode")) {
            return new Response(200, List.of(Map.entry("content-type", "application/json")), output);
        }
        JsonNode status = node.get("statusCode");
        if (!status.canConvertToInt() || status.asInt() < 100 || status.asInt() > 599) {
            throw new MalformedResponse("statusCode is not an HTTP status: " + status);
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        JsonNode h = node.path("headers");
        if (!h.isMissingNode() && !h.isNull()) {
            if (!h.isObject()) {
                throw new MalformedResponse("headers is not an object");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = h.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isContainerNode()) {
                    throw new MalformedResponse("header " + e.getKey() + " is not a string");
                }
                headers.add(Map.entry(e.getKey(), e.getValue().asText()));
            }
        }
        JsonNode cookies = node.path("cookies");
        if (cookies.isArray()) {
            cookies.forEach(c -> headers.add(Map.entry("set-cookie", c.asText())));
        }
        JsonNode body = node.path("body");
        byte[] bytes;
        if (body.isMissingNode() || body.isNull()) {
            bytes = new byte[0];
        } else if (node.path("isBase64Encoded").asBoolean(false)) {
            try {
                bytes = Base64.getDecoder().decode(body.asText());
            } catch (IllegalArgumentException e) {
                throw new MalformedResponse("isBase64Encoded is true but body is not base64");
            }
        } else {
            bytes = (body.isTextual() ? body.asText() : body.toString()).getBytes(StandardCharsets.UTF_8);
        }
        return new Response(status.asInt(), headers, bytes);
    }

    /** Text bodies pass as they are; every other body (and one without a content type) is base64-encoded. */
    static boolean isText(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        return type.startsWith("text/") || type.equals("application/json") || type.equals("application/xml")
                || type.equals("application/javascript") || type.endsWith("+json") || type.endsWith("+xml");
    }

    static Map<String, String> queryParameters(String rawQuery) {
        Map<String, String> result = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return result;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            result.merge(name, value, (a, b) -> a + "," + b);
        }
        return result;
    }

    /** {@code Root=1-<epoch seconds hex>-<96 random bits hex>}, the X-Ray trace header API Gateway adds. */
    static String traceHeader(Instant now) {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        return String.format("Root=1-%08x-%08x%08x%08x", now.getEpochSecond(), r.nextInt(), r.nextInt(), r.nextInt());
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }
}
