package dev.oncepay.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.sim.WebhookDelivery;
import dev.oncepay.sim.WebhookEvent;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A provider that answers a charge with {@code processing} and later sends its
 * {@code charge.succeeded}: the charge is {@code 202} (not a decline, so the shopper is not sent
 * to pay again), and the webhook settles it with the one charge the provider made. The charge
 * side through its adapter bean (this application exports {@code webhook}), the webhook through
 * the function's entry point.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ProcessingAnswerSettledByWebhookTest extends WebhookChargeSupport {
    private static final String TENANT = "merchant-p";


    @AfterEach
    void cleanUp() {
        simulator.reset();
    }

    @Test
    void aProcessingAnswerIs202AndTheProvidersWebhookSettlesIt() throws Exception {
        simulator.setFaults(Faults.none().withNonFinalRate(1.0));
        String key = UUID.randomUUID().toString();
        String body = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_" + key + "\"}";

        HttpApiResponse accepted = charge(key, body);

        assertEquals(202, accepted.statusCode(), accepted.body());
        String paymentId = json.readTree(accepted.body()).get("id").asText();
        assertEquals(PaymentStatus.UNKNOWN, payments.find(paymentId).orElseThrow().status());

        WebhookDelivery delivery = simulator.webhookFor(WebhookEvent.SUCCEEDED, paymentId);
        ApiResponse webhook = WebhookRequests.call(WebhookRequests.event("sim", delivery.body(), delivery.signature()));
        assertEquals(200, webhook.status(), webhook.body());
        assertEquals("applied", webhook.json().get("outcome").asText());

        HttpApiResponse replay = charge(key, body);
        assertEquals(201, replay.statusCode(), replay.body());
        JsonNode settled = json.readTree(replay.body());
        assertEquals("succeeded", settled.get("status").asText());
        List<LedgerEntry> charges = simulator.ledger().stream().filter(c -> c.reference().equals(paymentId)).toList();
        assertEquals(1, charges.size(), "exactly one charge at the provider");
        assertEquals(charges.get(0).id(), settled.get("providerPaymentId").asText());
    }

    private HttpApiResponse charge(String key, String body) {
        return postPayment(TENANT, key, body);
    }
}
