package dev.oncepay.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.sim.WebhookSignature;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Webhook requests as API Gateway delivers them to the {@code webhook} function: real HTTP API
 * 2.0 event JSON for {@code POST /webhooks/{provider}} (route with path parameter, no authorizer:
 * the signature is the authentication), with bodies signed like the provider signs them.
 */
public final class WebhookRequests {
    private static final ObjectMapper JSON = new ObjectMapper();

    private WebhookRequests() {
    }

    /** A charge event body in the provider's shape (design §3). */
    public static String chargeEvent(String eventId, String type, String reference, String chargeId, long amount,
            String currency) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("chargeId", chargeId);
        data.put("reference", reference);
        data.put("status", type.equals("charge.failed") ? "failed" : "succeeded");
        data.put("amount", amount);
        data.put("currency", currency);
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("id", eventId);
        event.put("type", type);
        event.put("created", Instant.now().getEpochSecond());
        event.put("data", data);
        try {
            return JSON.writeValueAsString(event);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String newEventId() {
        return "evt_" + UUID.randomUUID().toString().replace("-", "");
    }

    static String sign(String secret, String body, long unixSeconds) {
        return WebhookSignature.header(secret, body, unixSeconds);
    }

    public static String signNow(String secret, String body) {
        return sign(secret, body, Instant.now().getEpochSecond());
    }

    /** The event JSON with the generic PSP's {@code Payment-Signature}; {@code signature} null leaves the header out. */
    public static String event(String provider, String body, String signature) {
        return event(provider, body, WebhookSignature.HEADER, signature);
    }

    /** The event JSON with the signature in {@code signatureHeader} (HTTP API lower-cases it); null leaves it out. */
    static String event(String provider, String body, String signatureHeader, String signature) {
        HttpApiEvents e = HttpApiEvents.request("POST", "/webhooks/" + provider).tenant(null)
                .header("user-agent", "psp-webhooks/1.0").body(body);
        if (signature != null) {
            e.header(signatureHeader.toLowerCase(Locale.ROOT), signature);
        }
        return withRoute(e, provider);
    }

    /** The same, with the body base64-encoded by API Gateway ({@code isBase64Encoded: true}). */
    static String base64Event(String provider, byte[] body, String signature) {
        return base64Event(provider, body, WebhookSignature.HEADER, signature);
    }

    static String base64Event(String provider, byte[] body, String signatureHeader, String signature) {
        HttpApiEvents e = HttpApiEvents.request("POST", "/webhooks/" + provider).tenant(null)
                .header("content-type", "application/octet-stream")
                .header("content-length", Integer.toString(body.length))
                .header(signatureHeader.toLowerCase(Locale.ROOT), signature).base64Body(body);
        return withRoute(e, provider);
    }

    private static String withRoute(HttpApiEvents e, String provider) {
        try {
            ObjectNode event = (ObjectNode) JSON.readTree(e.json());
            event.put("routeKey", "POST /webhooks/{provider}");
            ((ObjectNode) event.get("requestContext")).put("routeKey", "POST /webhooks/{provider}");
            ((ObjectNode) event.get("pathParameters")).put("provider", provider);
            return event.toString();
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Invokes the function through the Lambda mock event server. */
    static ApiResponse call(String eventJson) {
        return LambdaClient.call(eventJson);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
