package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** HTTP request → API Gateway HTTP API v2 event JSON → the function's response → HTTP, by API Gateway's rules. */
class HttpApiV2Test {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00.123Z");
    private static final HttpApiV2.Route CREATE = route("POST", "/payments");
    private static final HttpApiV2.Route SHOW = route("GET", "/payments/{id}");
    private static final HttpApiV2.Route WEBHOOK = route("POST", "/webhooks/{provider}");

    private static HttpApiV2.Route route(String method, String path) {
        return HttpApiV2.oncepayRoutes().stream().filter(r -> r.method().equals(method) && r.pathTemplate().equals(path))
                .findFirst().orElseThrow();
    }

    private static HttpApiV2.Request request(String method, String path, String query, byte[] body, String... headers) {
        List<Map.Entry<String, String>> h = new java.util.ArrayList<>();
        for (int i = 0; i < headers.length; i += 2) {
            h.add(Map.entry(headers[i], headers[i + 1]));
        }
        return new HttpApiV2.Request(method, path, query, h, body, "127.0.0.1", "HTTP/1.1");
    }

    @Test
    void aPaymentRequestBecomesAPayloadV2EventWithTheTenantAsAJwtClaim() throws Exception {
        String body = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_1\"}";
        HttpApiV2.Request request = request("POST", "/payments", null, body.getBytes(StandardCharsets.UTF_8),
                "Host", "127.0.0.1:8080", "Idempotency-Key", "k1", "X-Tenant-Id", "merchant-a",
                "Content-Type", "application/json", "User-Agent", "curl/8.0", "Accept", "text/plain",
                "Accept", "application/json", "Cookie", "a=1; b=2");

        ObjectNode event = HttpApiV2.event(request, CREATE, Map.of(), "req-1", NOW, "merchant-a");

        assertEquals("2.0", event.get("version").asText());
        assertEquals("POST /payments", event.get("routeKey").asText());
        assertEquals("/payments", event.get("rawPath").asText());
        assertEquals("", event.get("rawQueryString").asText());
        JsonNode headers = event.get("headers");
        assertEquals("k1", headers.get("idempotency-key").asText(), "names lower-cased");
        assertEquals("merchant-a", headers.get("x-tenant-id").asText(), "headers pass through as sent");
        assertEquals("text/plain,application/json", headers.get("accept").asText(), "repeated headers comma-joined");
        assertFalse(headers.has("cookie"), "cookies travel apart");
        assertEquals("[\"a=1\",\"b=2\"]", event.get("cookies").toString());
        assertTrue(headers.get("x-amzn-trace-id").asText().matches("Root=1-[0-9a-f]{8}-[0-9a-f]{24}"));
        assertEquals("127.0.0.1", headers.get("x-forwarded-for").asText());
        assertEquals("8080", headers.get("x-forwarded-port").asText());
        assertFalse(event.has("queryStringParameters"), "absent without a query, as on AWS");
        assertFalse(event.has("pathParameters"), "absent on a route without parameters");

        JsonNode context = event.get("requestContext");
        assertEquals("req-1", context.get("requestId").asText());
        assertEquals("POST /payments", context.get("routeKey").asText());
        assertEquals("$default", context.get("stage").asText());
        assertEquals("POST", context.at("/http/method").asText());
        assertEquals("/payments", context.at("/http/path").asText());
        assertEquals("127.0.0.1", context.at("/http/sourceIp").asText());
        assertEquals("HTTP/1.1", context.at("/http/protocol").asText());
        assertEquals("curl/8.0", context.at("/http/userAgent").asText());
        assertEquals("30/Nov/2026:10:00:00 +0000", context.get("time").asText());
        assertEquals(NOW.toEpochMilli(), context.get("timeEpoch").asLong());
        assertEquals("merchant-a", context.at("/authorizer/jwt/claims/tenant_id").asText());

        assertEquals(body, event.get("body").asText(), "a JSON body passes as text");
        assertFalse(event.get("isBase64Encoded").asBoolean());

        // The application reads it with its own event type, exactly as on Lambda.
        HttpApiEvent parsed = JSON.treeToValue(event, HttpApiEvent.class);
        assertEquals("POST", parsed.method());
        assertEquals("/payments", parsed.path());
        assertEquals("k1", parsed.header("Idempotency-Key"));
        assertEquals("merchant-a", parsed.requestContext().authorizer().jwt().claims().get("tenant_id"));
        assertArrayEquals(body.getBytes(StandardCharsets.UTF_8), parsed.rawBody());
    }

    @Test
    void pathAndQueryParametersAreDecodedAndNonTextBodiesBase64Encoded() throws Exception {
        byte[] binary = {0, 1, 2, (byte) 0xff, 'x'};
        HttpApiV2.Request request = request("GET", "/payments/pay_%41b", "a=1&a=2&b=x%20y&flag", binary,
                "Content-Type", "application/octet-stream");
        Map<String, String> params = SHOW.match("GET", request.rawPath());
        ObjectNode event = HttpApiV2.event(request, SHOW, params, "req-2", NOW, "t");

        assertEquals("GET /payments/{id}", event.get("routeKey").asText());
        assertEquals("/payments/pay_%41b", event.get("rawPath").asText(), "rawPath as sent");
        assertEquals("pay_Ab", event.at("/pathParameters/id").asText(), "path parameters decoded");
        assertEquals("a=1&a=2&b=x%20y&flag", event.get("rawQueryString").asText());
        assertEquals("1,2", event.at("/queryStringParameters/a").asText());
        assertEquals("x y", event.at("/queryStringParameters/b").asText());
        assertEquals("", event.at("/queryStringParameters/flag").asText());
        assertTrue(event.get("isBase64Encoded").asBoolean());
        HttpApiEvent parsed = JSON.treeToValue(event, HttpApiEvent.class);
        assertArrayEquals(binary, parsed.rawBody(), "the function gets the exact bytes back");
        assertEquals("pay_Ab", parsed.pathParameter("id"));
    }

    @Test
    void aJsonBodyThatIsNotUtf8IsPassedBase64EncodedNeverRepaired() throws Exception {
        byte[] latin1 = "{\"description\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        ObjectNode event = HttpApiV2.event(request("POST", "/payments", null, latin1,
                "Content-Type", "application/json"), CREATE, Map.of(), "r", NOW, "t");

        assertTrue(event.get("isBase64Encoded").asBoolean());
        assertFalse(event.get("body").asText().contains("\uFFFD"));
        assertArrayEquals(latin1, JSON.treeToValue(event, HttpApiEvent.class).rawBody(), "the exact bytes");
    }

    @Test
    void aBodyWithoutAContentTypeOrAFormIsBase64EncodedAndNoBodyMeansNoBodyField() {
        ObjectNode form = HttpApiV2.event(request("POST", "/payments", null, "a=1".getBytes(StandardCharsets.UTF_8),
                "Content-Type", "application/x-www-form-urlencoded"), CREATE, Map.of(), "r", NOW, "t");
        assertEquals("YT0x", form.get("body").asText());
        assertTrue(form.get("isBase64Encoded").asBoolean());

        ObjectNode none = HttpApiV2.event(request("GET", "/payments/p", null, new byte[0]), SHOW, Map.of("id", "p"),
                "r", NOW, "t");
        assertFalse(none.has("body"));
        assertFalse(none.get("isBase64Encoded").asBoolean());

        assertTrue(HttpApiV2.isText("application/problem+json; charset=utf-8"));
        assertTrue(HttpApiV2.isText("text/plain"));
        assertFalse(HttpApiV2.isText(null));
        assertFalse(HttpApiV2.isText("image/png"));
    }

    @Test
    void theWebhookRouteHasNoAuthorizerAndKeepsTheRawBodyForTheSignature() {
        String body = "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\"}";
        HttpApiV2.Request request = request("POST", "/webhooks/sim", null, body.getBytes(StandardCharsets.UTF_8),
                "Content-Type", "application/json", "Payment-Signature", "t=1,v1=ab");
        Map<String, String> params = WEBHOOK.match("POST", "/webhooks/sim");
        ObjectNode event = HttpApiV2.event(request, WEBHOOK, params, "r", NOW, null);
        assertEquals("POST /webhooks/{provider}", event.get("routeKey").asText());
        assertEquals("sim", event.at("/pathParameters/provider").asText());
        assertFalse(event.get("requestContext").has("authorizer"));
        assertEquals("t=1,v1=ab", event.at("/headers/payment-signature").asText());
        assertEquals(body, event.get("body").asText(), "byte for byte");
    }

    @Test
    void routesMatchLikeHttpApi() {
        assertEquals(Map.of(), CREATE.match("POST", "/payments"));
        assertNull(CREATE.match("GET", "/payments"), "method is part of the route");
        assertNull(CREATE.match("POST", "/payments/"));
        assertEquals(Map.of("id", "pay_1"), SHOW.match("GET", "/payments/pay_1"));
        assertNull(SHOW.match("GET", "/payments/"), "a parameter is never empty");
        assertNull(SHOW.match("GET", "/payments/a/b"), "a parameter is one segment");
        assertNull(SHOW.match("GET", "/Payments/a"), "paths are case-sensitive");
        assertEquals(Map.of("provider", "sim"), WEBHOOK.match("POST", "/webhooks/sim"));
        assertEquals(Map.of("id", "pay_1", "refundId", "ref_2"),
                route("GET", "/payments/{id}/refunds/{refundId}").match("GET", "/payments/pay_1/refunds/ref_2"));
        assertEquals(Map.of("id", "pay_1"), route("POST", "/payments/{id}/refunds").match("POST", "/payments/pay_1/refunds"));
    }

    @Test
    void theFunctionsResponseBecomesHttp() throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Idempotent-Replayed", "true");
        HttpApiResponse fromApp = new HttpApiResponse(201, headers, "{\"id\":\"pay_1\"}", false);
        HttpApiV2.Response r = HttpApiV2.response(JSON.writeValueAsBytes(fromApp));
        assertEquals(201, r.status());
        assertEquals("true", r.header("Idempotent-Replayed"));
        assertEquals("application/json", r.header("content-type"));
        assertEquals("{\"id\":\"pay_1\"}", r.bodyText());

        HttpApiV2.Response binary = HttpApiV2.response(
                "{\"statusCode\":200,\"body\":\"AAH/\",\"isBase64Encoded\":true,\"cookies\":[\"s=1\",\"t=2\"]}"
                        .getBytes(StandardCharsets.UTF_8));
        assertArrayEquals(new byte[] {0, 1, (byte) 0xff}, binary.body());
        assertEquals(List.of("s=1", "t=2"), binary.headers().stream().filter(h -> h.getKey().equals("set-cookie"))
                .map(Map.Entry::getValue).toList());
    }

    @Test
    void outputWithoutStatusCodeIsA200JsonAndUnusableOutputIsRejected() throws Exception {
        HttpApiV2.Response inferred = HttpApiV2.response("{\"examined\":3}".getBytes(StandardCharsets.UTF_8));
        assertEquals(200, inferred.status());
        assertEquals("application/json", inferred.header("content-type"));
        assertEquals("{\"examined\":3}", inferred.bodyText());

        assertThrows(HttpApiV2.MalformedResponse.class, () -> HttpApiV2.response("not json".getBytes()));
        assertThrows(HttpApiV2.MalformedResponse.class, () -> HttpApiV2.response("{\"statusCode\":\"abc\"}".getBytes()));
        assertThrows(HttpApiV2.MalformedResponse.class, () -> HttpApiV2.response("{\"statusCode\":99}".getBytes()));
        assertThrows(HttpApiV2.MalformedResponse.class,
                () -> HttpApiV2.response("{\"statusCode\":200,\"body\":\"%%\",\"isBase64Encoded\":true}".getBytes()));
    }
}
