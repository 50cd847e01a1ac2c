package dev.oncepay.webhook;

import dev.oncepay.payment.Actor;
import static dev.oncepay.testing.Problems.assertProblem;
import static dev.oncepay.webhook.WebhookRequests.call;
import static dev.oncepay.webhook.WebhookRequests.chargeEvent;
import static dev.oncepay.webhook.WebhookRequests.event;
import static dev.oncepay.webhook.WebhookRequests.newEventId;
import static dev.oncepay.webhook.WebhookRequests.signNow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.Transition;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaultProxy;
import dev.oncepay.testkit.StoreFaults;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HexFormat;
import java.util.OptionalLong;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The webhook when the store fails, and webhook bodies that are not UTF-8: a store
 * failure is a {@code 503} so the provider redelivers, with nothing half-applied; a correctly
 * signed body that is not UTF-8 is a {@code 400} and nothing is stored.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookStoreFailureTest {
    private static final String SIM = "sim";

    @Inject
    PaymentRepository payments;
    @Inject
    TestClock clock;

    StoreFaultProxy store;

    @BeforeEach
    void healthyStore() {
        store = TestEnvironment.storeProxy();
        store.reset();
        clock.reset();
    }

    @AfterEach
    void resetStore() {
        store.reset();
    }

    @Test
    void storeOutageIs503AndStoresNothing() {
        String paymentId = unknownPayment();
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_out", 4200, "EUR");
        store.set(StoreFaults.none().withOutage(true));

        ApiResponse refused = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));

        assertProblem(refused, 503, "store-unavailable");
        assertNotNull(refused.header("Retry-After"));
        store.reset();
        assertTrue(StoredItems.item(journalPk(eventId)).isEmpty(), "nothing journaled");
        assertEquals(PaymentStatus.UNKNOWN, payments.find(paymentId).orElseThrow().status());

        ApiResponse redelivered = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        assertEquals(200, redelivered.status(), redelivered.body());
        assertEquals("applied", redelivered.json().get("outcome").asText());
    }

    @Test
    void storeFailingMidwayIs503AndTheRedeliveryCompletesItOnce() {
        String paymentId = unknownPayment();
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_mid", 4200, "EUR");
        // Journaled, then every attempt to move the payment fails.
        store.failNext("UpdateItem", "payment#", StoreFault.SERVER_ERROR, 3);

        ApiResponse refused = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));

        assertProblem(refused, 503, "store-unavailable");
        assertEquals(PaymentStatus.UNKNOWN, payments.find(paymentId).orElseThrow().status(), "nothing applied");
        assertEquals("RECEIVED", StoredItems.item(journalPk(eventId)).orElseThrow().get(Table.EVENT_STATE).s(),
                "journaled, not marked processed");

        store.reset();
        ApiResponse redelivered = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        assertEquals(200, redelivered.status(), redelivered.body());
        assertEquals("applied", redelivered.json().get("outcome").asText());
        assertFalse(redelivered.json().get("duplicate").asBoolean());
        Payment settled = payments.find(paymentId).orElseThrow();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals("ch_mid", settled.providerPaymentId());
    }

    @Test
    void lostAnswerOfTheJournalEntryIsRecognisedAsOurs() {
        assertLostAnswerIsOurs("PutItem", "event#");
    }

    @Test
    void lostAnswerOfThePaymentWriteIsRecognisedAsOurs() {
        assertLostAnswerIsOurs("UpdateItem", "payment#");
    }

    private void assertLostAnswerIsOurs(String operation, String itemPrefix) {
        String paymentId = unknownPayment();
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_lost", 4200, "EUR");
        store.failNext(operation, itemPrefix, StoreFault.LOST_ANSWER, 1);

        ApiResponse first = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));

        assertEquals(200, first.status(), first.body());
        assertEquals(1, store.injected(StoreFault.LOST_ANSWER));
        assertEquals("applied", first.json().get("outcome").asText());
        assertFalse(first.json().get("duplicate").asBoolean(), "our own write is not a duplicate");
        assertEquals(PaymentStatus.SUCCEEDED, payments.find(paymentId).orElseThrow().status());
        assertEquals("PROCESSED", StoredItems.item(journalPk(eventId)).orElseThrow().get(Table.EVENT_STATE).s());
    }

    @Test
    void aCorrectlySignedBodyThatIsNotUtf8Is400AndStoresNothing() throws Exception {
        String paymentId = unknownPayment();
        String eventId = newEventId();
        byte[] valid = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_bytes", 4200, "EUR")
                .getBytes(StandardCharsets.UTF_8);
        // An invalid byte inside the charge id: signed as sent, so only the UTF-8 check can reject it.
        String marker = "\"chargeId\":\"ch_";
        int at = new String(valid, StandardCharsets.UTF_8).indexOf(marker) + marker.length();
        ByteArrayOutputStream broken = new ByteArrayOutputStream();
        broken.write(valid, 0, at);
        broken.write(0xFF);
        broken.write(valid, at, valid.length - at);
        byte[] raw = broken.toByteArray();

        ApiResponse rejected = call(WebhookRequests.base64Event(SIM, raw, signatureOver(raw)));

        assertProblem(rejected, 400, "invalid-request");
        assertEquals("body", rejected.json().at("/errors/0/field").asText());
        assertTrue(StoredItems.item(journalPk(eventId)).isEmpty(), "nothing journaled");
        assertEquals(PaymentStatus.UNKNOWN, payments.find(paymentId).orElseThrow().status());
    }

    /** {@code t=…,v1=…} over the raw bytes, as a provider signs whatever it sends. */
    private static String signatureOver(byte[] raw) throws Exception {
        long t = Instant.now().getEpochSecond();
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(WebhookTestProfile.SIM_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update((t + ".").getBytes(StandardCharsets.US_ASCII));
        return "t=" + t + ",v1=" + HexFormat.of().formatHex(mac.doFinal(raw));
    }

    private static String journalPk(String eventId) {
        return "event#" + SIM + "#" + eventId;
    }

    /** A payment whose charge call timed out: UNKNOWN, waiting for a webhook. */
    private String unknownPayment() {
        String id = "pay_" + UUID.randomUUID().toString().replace("-", "");
        Instant now = clock.instant();
        assertTrue(payments.createPending(new Payment(id, "merchant-a", PaymentStatus.PENDING, 4200, "EUR",
                "order_" + id, null, null, null, null, now, now, 1, 0, new ProviderAccount("sim", "default"),
                now.plusSeconds(35), null, null), now.plusSeconds(70)));
        assertTrue(payments.apply(id, "merchant-a", new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null,
                "read timeout", now.plusSeconds(30), OptionalLong.of(1)), Actor.chargeRun(1), now));
        return id;
    }
}
