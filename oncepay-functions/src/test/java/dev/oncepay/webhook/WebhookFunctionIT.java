package dev.oncepay.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Table;
import dev.oncepay.sim.WebhookEvent;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The webhook function as it is deployed (function.zip under AWS's runtime interface client, or the
 * native binary in the native profile): a provider's signed event through the Lambda Runtime API is
 * verified and journaled; a forged one is refused and leaves nothing.
 */
@QuarkusIntegrationTest
@TestProfile(WebhookFunctionIT.Deployed.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookFunctionIT {
    private static final String SECRET = "local-sim-secret";

    /** The webhook function's deployment settings: its export and the simulator's signing secret. */
    public static class Deployed implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.funqy.export", "webhook", "oncepay.webhook.secrets.sim.default", SECRET);
        }
    }

    @Test
    void aSignedEventIsJournaledAndAForgedOneRefused() {
        String paymentId = "pay_" + UUID.randomUUID().toString().replace("-", "");
        String forgedId = WebhookRequests.newEventId();
        String forged = WebhookRequests.chargeEvent(forgedId, WebhookEvent.SUCCEEDED, paymentId, "ch_it", 4200, "EUR");
        ApiResponse refused = LambdaClient.call(WebhookRequests.event("sim", forged,
                WebhookRequests.signNow("not-the-secret", forged)));
        assertEquals(401, refused.status(), refused.body());
        assertTrue(StoredItems.item(EventJournal.pk("sim", forgedId)).isEmpty(), "a forged event is not journaled");

        String eventId = WebhookRequests.newEventId();
        String body = WebhookRequests.chargeEvent(eventId, WebhookEvent.SUCCEEDED, paymentId, "ch_it", 4200, "EUR");
        ApiResponse accepted = LambdaClient.call(WebhookRequests.event("sim", body, WebhookRequests.signNow(SECRET, body)));
        assertEquals(200, accepted.status(), accepted.body());
        assertEquals("unknown_payment", accepted.json().get("outcome").asText());
        assertEquals(JournalEntry.State.PROCESSED.name(),
                StoredItems.item(EventJournal.pk("sim", eventId)).orElseThrow().get(Table.EVENT_STATE).s());
    }
}
