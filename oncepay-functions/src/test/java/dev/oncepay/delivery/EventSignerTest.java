package dev.oncepay.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.events.MerchantEndpoint;
import dev.oncepay.payment.MerchantEventType;
import dev.oncepay.sim.merchant.MerchantSignature;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The signature a merchant verifies, the startup refusal of an endpoint without secrets, and SQS's whole-second delays. */
class EventSignerTest {
    private static final String BODY = "{\"id\":\"evt_pay_1_2\",\"type\":\"payment.succeeded\",\"sequence\":2}";

    @Test
    void eachSecretSignsTimestampAndBodyWithOneV1NewestFirst() {
        String header = EventSigner.header(List.of("whsec_new", "whsec_old"), BODY, 1764669600L);

        String[] parts = header.split(",");
        assertEquals(3, parts.length, header);
        assertEquals("t=1764669600", parts[0]);
        assertTrue(parts[1].matches("v1=[0-9a-f]{64}") && parts[2].matches("v1=[0-9a-f]{64}"), header);
        assertFalse(header.contains("whsec"), "no secret in the header");
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        assertTrue(MerchantSignature.verify(header, body, List.of("whsec_new"), 1764669600L));
        assertTrue(MerchantSignature.verify(header, body, List.of("whsec_old"), 1764669600L + 300));
        assertFalse(MerchantSignature.verify(header, body, List.of("whsec_other"), 1764669600L));
        assertFalse(MerchantSignature.verify(header, (BODY + " ").getBytes(StandardCharsets.UTF_8), List.of("whsec_new"),
                1764669600L), "the raw body is signed, byte for byte");
        assertEquals(MerchantSignature.header(List.of("whsec_new", "whsec_old"), BODY, 1764669600L), header,
                "the scheme the simulator's merchant and the docs use");
    }

    @Test
    void anEndpointWithoutSecretsStopsEventDeliveryNamingItsProperty() {
        MerchantEndpoint signed = new MerchantEndpoint("merchant-a", "orders", URI.create("https://a.example/events"),
                Set.of(MerchantEventType.PAYMENT_SUCCEEDED), List.of("whsec_a"));
        MerchantEndpoint unsigned = new MerchantEndpoint("merchant-b", "refunds", URI.create("https://b.example/events"),
                Set.of(MerchantEventType.REFUND_SUCCEEDED), List.of());

        DeliveryStartupCheck.requireSecrets(List.of(signed));
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> DeliveryStartupCheck.requireSecrets(List.of(signed, unsigned)));

        assertTrue(refused.getMessage().startsWith(DeploymentSettings.endpointProperty("merchant-b", "refunds",
                DeploymentSettings.ENDPOINT_SECRETS)), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EventSigner.header(List.of(), BODY, 0));
    }

    @Test
    void delaysAreWholeSecondsRoundedUpAndAtLeastOne() {
        assertEquals(Duration.ofSeconds(1), EventDeliveryWorker.wholeSeconds(Duration.ZERO));
        assertEquals(Duration.ofSeconds(1), EventDeliveryWorker.wholeSeconds(Duration.ofMillis(-5)));
        assertEquals(Duration.ofSeconds(2), EventDeliveryWorker.wholeSeconds(Duration.ofMillis(1001)));
        assertEquals(Duration.ofSeconds(900), EventDeliveryWorker.wholeSeconds(Duration.ofSeconds(900)));
    }

    @Test
    void aFailedCallIsNamedWithoutItsMessage() {
        assertEquals("connection refused", EndpointCall.answerOf(new java.net.ConnectException("to https://secret.example/?token=x")));
        assertEquals("timeout", EndpointCall.answerOf(new java.io.IOException("wrapped",
                new java.net.http.HttpConnectTimeoutException("connect timed out"))));
        assertEquals("connection failed", EndpointCall.answerOf(new java.io.IOException("reset")));
    }
}
