package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which function of the local run is told the event queue, the tenants' endpoints and their signing secret. */
class LocalEventsTest {
    private static final String QUEUE = "http://127.0.0.1:9324/000000000000/oncepay-events";
    private static final String SECRETS_A = "ONCEPAY_EVENTS_ENDPOINTS__MERCHANT_A___ORDERS__SECRETS";

    @Test
    void everyFunctionRelaysToTheQueueAndOnlyEventDeliveryHoldsTheSecret() throws Exception {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--merchant-port", "19420", "--merchant-secret", "s3cret",
                "--tenant-provider", "merchant-s=stripe"), Map.of());
        for (String function : LocalRunOptions.FUNCTIONS) {
            Map<String, String> env = LocalEvents.environment(function, o, QUEUE);
            assertEquals(QUEUE, env.get("ONCEPAY_EVENT_QUEUE_URL"), function);
            assertEquals("true", env.get("ONCEPAY_EVENTS_ALLOW_HTTP"), function + ": the merchant endpoint is plain http");
            Map<String, String> endpoints = new ObjectMapper().readValue(env.get("ONCEPAY_EVENT_ENDPOINTS"),
                    new TypeReference<Map<String, String>>() { });
            assertEquals(Map.of(
                    "oncepay.events.endpoints.\"merchant-a\".\"orders\".url", "http://127.0.0.1:19420/merchant/merchant-a",
                    "oncepay.events.endpoints.\"merchant-b\".\"orders\".url", "http://127.0.0.1:19420/merchant/merchant-b",
                    "oncepay.events.endpoints.\"merchant-c\".\"orders\".url", "http://127.0.0.1:19420/merchant/merchant-c",
                    "oncepay.events.endpoints.\"merchant-s\".\"orders\".url", "http://127.0.0.1:19420/merchant/merchant-s"),
                    endpoints, function + ": every event type, no secret");
            boolean delivery = function.equals("event-delivery");
            assertEquals(delivery ? 4 : 0, env.keySet().stream().filter(k -> k.endsWith("__SECRETS")).count(), function);
            assertEquals(delivery ? "s3cret" : null, env.get(SECRETS_A), function);
        }
        assertEquals(Map.of("merchant-a", List.of("s3cret"), "merchant-b", List.of("s3cret"), "merchant-c",
                List.of("s3cret"), "merchant-s", List.of("s3cret")), LocalEvents.merchantSecrets(o),
                "the merchant verifies each tenant's path with the secret event-delivery signs with");
    }

    @Test
    void eventDeliveryGetsNoProviderKey() {
        Map<String, String> env = LocalProviders.environment("event-delivery", LocalRunOptions.parse(List.of(), Map.of()),
                "http://127.0.0.1:8090", Map.of("default", "q"));
        assertFalse(env.keySet().stream().anyMatch(k -> k.contains("API_KEY") || k.contains("SECRETS")), env.toString());
        assertFalse(env.containsKey("ONCEPAY_PROVIDER_QUEUE_URL"));
    }

    @Test
    void noEventsNoEnvironment() {
        assertTrue(LocalEvents.environment("charge", LocalRunOptions.parse(List.of("--no-events"), Map.of()), null).isEmpty());
    }

    @Test
    void theSecretsVariableMapsBackToTheQuotedProperty() {
        assertEquals(SECRETS_A, LocalEvents.secretsVariable("merchant-a", "orders"));
    }
}
