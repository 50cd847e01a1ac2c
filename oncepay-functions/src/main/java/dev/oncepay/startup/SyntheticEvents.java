package dev.oncepay.startup;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.queue.ChargeJob;
import dev.oncepay.queue.EventDeliveryJob;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.reconcile.ScheduledEvent;
import io.quarkus.amazon.lambda.runtime.AmazonLambdaMapperRecorder;
import java.util.Map;

/**
 * Events for priming, as JSON in the shape API Gateway and EventBridge send, read the way the Funqy
 * handler reads an invocation (with its own object mapper, {@link AmazonLambdaMapperRecorder#objectMapper}),
 * and answers written the way it writes them: the first real request then finds Jackson's
 * deserializers and serializers for these types built. Every event says it is priming in its
 * request id ({@value #REQUEST_ID}), which is what a log line of it shows.
 */
final class SyntheticEvents {
    static final String REQUEST_ID = "oncepay-priming";
    /** A tenant no merchant is given: the authorizer's claim never carries it. */
    static final String TENANT = "oncepay-priming";

    private final ObjectMapper mapper;

    SyntheticEvents(ObjectMapper fallback) {
        // Set while the Lambda runtime starts (and in tests); the application's mapper otherwise.
        this.mapper = AmazonLambdaMapperRecorder.objectMapper != null ? AmazonLambdaMapperRecorder.objectMapper : fallback;
    }

    /**
     * An HTTP API (payload 2.0) request for {@code routeKey} ({@code "GET /payments/{id}"}) at
     * {@code path}, with {@code tenantClaim} set to {@link #TENANT} in a JWT authorizer's claims when not null.
     */
    HttpApiEvent http(String routeKey, String path, Map<String, String> pathParameters, String tenantClaim,
            Map<String, String> headers, String body) {
        ObjectNode event = mapper.createObjectNode();
        event.put("version", "2.0").put("routeKey", routeKey).put("rawPath", path).put("rawQueryString", "");
        event.putPOJO("headers", headers);
        event.putPOJO("pathParameters", pathParameters);
        ObjectNode context = event.putObject("requestContext");
        context.put("requestId", REQUEST_ID).put("routeKey", routeKey).put("stage", "$default");
        context.putObject("http").put("method", routeKey.substring(0, routeKey.indexOf(' '))).put("path", path)
                .put("sourceIp", "127.0.0.1");
        if (tenantClaim != null) {
            context.putObject("authorizer").putObject("jwt").putObject("claims").put(tenantClaim, TENANT);
        }
        event.put("body", body).put("isBase64Encoded", false);
        return read(event, HttpApiEvent.class);
    }

    /** An EventBridge scheduled event, as the reconcile schedule sends it. */
    ScheduledEvent schedule() {
        ObjectNode event = mapper.createObjectNode();
        event.put("version", "0").put("id", REQUEST_ID).put("detail-type", "Scheduled Event").put("source", "aws.events")
                .put("account", "000000000000").put("time", "1970-01-01T00:00:00Z").put("region", "us-east-1");
        event.putArray("resources");
        event.putObject("detail");
        return read(event, ScheduledEvent.class);
    }

    /** A charge queue message's body, as the charge worker reads it, for a payment that does not exist. */
    ChargeJob chargeJob() {
        ObjectNode job = mapper.createObjectNode();
        job.put("paymentId", "pay_00000000000000000000000000000000").put("keyId", "key#" + REQUEST_ID)
                .put("epoch", 1).put("attempt", 0).put("queuedAtMs", 0);
        return read(job, ChargeJob.class);
    }

    /** An event queue message's body, as event delivery reads it, for an endpoint no tenant has. */
    EventDeliveryJob eventDeliveryJob() {
        ObjectNode job = mapper.createObjectNode();
        job.put("tenant", TENANT).put("endpoint", "priming").put("eventId", "evt_pay_00000000000000000000000000000000_1")
                .put("eventType", "payment.succeeded").put("objectId", "pay_00000000000000000000000000000000")
                .put("paymentId", "pay_00000000000000000000000000000000").put("sequence", 1).put("eventAtMs", 0)
                .put("body", "{}").put("attempt", 0).put("firstAttemptAtMs", 0).put("dueAtMs", 0);
        return read(job, EventDeliveryJob.class);
    }

    /** The answer as the handler would write it to the runtime; its status. */
    int written(HttpApiResponse response) {
        try {
            mapper.writerFor(HttpApiResponse.class).writeValueAsBytes(response);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("priming answer not writable: " + e.getMessage(), e);
        }
        return response.statusCode();
    }

    private <T> T read(ObjectNode event, Class<T> type) {
        try {
            return mapper.readerFor(type).readValue(mapper.writeValueAsBytes(event));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("priming event not readable as " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }
}
